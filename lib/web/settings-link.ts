import * as z from "zod";
import type { App } from "#lib/app/compose/app";
import type { Clock } from "#lib/core/clock";
import type { OneTimeMarks } from "#lib/core/ports";
import { SettingsLinkError } from "./errors";
import { constantTimeEqual, macOf, OneTimeSigner } from "./mac";
import { SETTINGS_LINK_PATH } from "./pages/view-model";

/** How long the Home tab's "Open settings" link signs its person in. */
export const SETTINGS_LINK_TTL_MS = 5 * 60_000;

/** Longer than any link this module writes: not ours. */
const MAX_LINK_LENGTH = 512;
const id = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/);
const epochMs = z.number().int().min(0).max(8.64e15);
/** The signed payload: [team, user, session epoch, nonce, expiresAt]. */
const payloadSchema = z.tuple([id, id, epochMs, z.string().regex(/^[A-Za-z0-9_-]{22}$/), epochMs]);
const LINK_FORM = /^1\.([A-Za-z0-9_-]{1,400})\.([A-Za-z0-9_-]{43})$/;

export interface SettingsLinkOptions {
  /** The front door's secret; shared with the state, session and CSRF, by label. */
  key: string;
  clock: Clock;
  /** Where each link's single use is recorded. */
  marks: OneTimeMarks;
  ttlMs?: number;
  random?: (size: number) => Uint8Array;
}

/** Whom a link signs in: the person, under the session epoch they had when it was made. */
export interface LinkedPerson {
  team: string;
  user: string;
  epoch: number;
}

/**
 * The Home tab's "Open settings" link (issue 26): it signs its person in to their settings
 * without a new install. Signed, not stored: the Home tab's publisher makes one without a
 * write; the route checks its form, its MAC (constant time) and its expiry on the injected
 * clock, then spends it with a conditional put, so it works once, for SETTINGS_LINK_TTL_MS, for
 * the person and session epoch it names (a disconnect since voids it: the route compares the
 * epoch). A forged link costs no write.
 */
export class SettingsLinks extends OneTimeSigner {
  constructor(opts: SettingsLinkOptions) {
    super(opts, "SettingsLinks", SETTINGS_LINK_TTL_MS);
  }

  /** A fresh link's token for `who` (the `link` parameter of `/settings/open`). */
  issue(who: LinkedPerson): string {
    const nonce = Buffer.from(this.random(16)).toString("base64url");
    const payload = [who.team, who.user, who.epoch, nonce, this.clock.now() + this.ttlMs];
    if (!payloadSchema.safeParse(payload).success) {
      throw new RangeError(`SettingsLinks: cannot issue a link for ${who.team}/${who.user}`);
    }
    const body = `1.${Buffer.from(JSON.stringify(payload), "utf8").toString("base64url")}`;
    return `${body}.${macOf(this.key, "settings-link", body)}`;
  }

  /**
   * Checks `token` and spends it; answers whom it signs in. Throws a SettingsLinkError
   * (`malformed`, `bad_signature`, `expired`, `replayed`); writes nothing for a link that is not
   * genuine and fresh.
   */
  async consume(token: string | undefined): Promise<LinkedPerson> {
    const match =
      token === undefined || token.length > MAX_LINK_LENGTH ? null : LINK_FORM.exec(token);
    const [, encoded, mac] = match ?? [];
    if (encoded === undefined || mac === undefined) {
      throw new SettingsLinkError("malformed", "not a link this app made");
    }
    if (!constantTimeEqual(macOf(this.key, "settings-link", `1.${encoded}`), mac)) {
      throw new SettingsLinkError("bad_signature", "the signature does not match");
    }
    let json: unknown;
    try {
      json = JSON.parse(Buffer.from(encoded, "base64url").toString("utf8"));
    } catch {
      throw new SettingsLinkError("malformed", "not a link this app made");
    }
    const parsed = payloadSchema.safeParse(json);
    if (!parsed.success) throw new SettingsLinkError("malformed", "not a link this app made");
    const [team, user, epoch, nonce, expiresAt] = parsed.data;
    const now = this.clock.now();
    if (now >= expiresAt) throw new SettingsLinkError("expired", "older than 5 minutes");
    if (!(await this.marks.consume(`settings-link#${nonce}`, expiresAt, now))) {
      throw new SettingsLinkError("replayed", "this link was already used");
    }
    return { team, user, epoch };
  }
}

/**
 * The Home tab's "Open settings" address for `who`, made where the Home tab is published (no
 * write; the web key only), or undefined when the app has no front door to sign in to.
 */
export async function homeSettingsLink(app: App, who: LinkedPerson): Promise<string | undefined> {
  const parts = app.frontDoor;
  const base = app.config.PUBLIC_BASE_URL;
  if (parts === undefined || base === undefined) return undefined;
  const links = new SettingsLinks({
    key: await parts.webKey(),
    clock: app.clock,
    marks: parts.marks,
  });
  const url = new URL(SETTINGS_LINK_PATH, base);
  url.searchParams.set("link", links.issue(who));
  return url.href;
}
