import { randomBytes } from "node:crypto";
import * as z from "zod";
import type { App } from "#lib/app/compose/app";
import type { Clock } from "#lib/core/clock";
import type { GrantRefusal, OneTimeMarks } from "#lib/core/ports";
import { SettingsLinkError } from "./errors";
import { SETTINGS_LINK_PATH } from "./pages/view-model";

/** How long the Home tab's "Open settings" link signs its person in. */
export const SETTINGS_LINK_TTL_MS = 5 * 60_000;

/** A link's token: a random 256-bit id, base64url. Anything else costs no store call. */
const LINK_FORM = /^[A-Za-z0-9_-]{43}$/;
const LINK_BYTES = 32;
const id = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/);
const epochMs = z.number().int().min(0).max(8.64e15);
/** The grant's payload: [team, user, session epoch]. */
const personSchema = z.tuple([id, id, epochMs]);

/** Where a link's grant is kept among the one-time grants. */
const grantIdOf = (token: string) => `settings-link#${token}`;

const REFUSALS: Record<GrantRefusal, [SettingsLinkError["code"], string]> = {
  unknown: ["unknown", "no such link"],
  expired: ["expired", "older than 5 minutes"],
  taken: ["replayed", "this link was already used"],
};

export interface SettingsLinkOptions {
  clock: Clock;
  /** Where each link's grant is stored, and taken once. */
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
 * without a new install. Stored, not signed: the link is a random id the Home tab's publisher
 * stores as a one-time grant of the person and their session epoch, so it needs no key (the
 * key that signs sessions stays with the front door). The route takes the grant: it works once,
 * for SETTINGS_LINK_TTL_MS on the injected clock, for the person and session epoch it names (a
 * disconnect since voids it: the route compares the epoch). A malformed link costs no read.
 */
export class SettingsLinks {
  private readonly clock: Clock;
  private readonly marks: OneTimeMarks;
  private readonly ttlMs: number;
  private readonly random: (size: number) => Uint8Array;

  constructor(opts: SettingsLinkOptions) {
    this.clock = opts.clock;
    this.marks = opts.marks;
    this.ttlMs = opts.ttlMs ?? SETTINGS_LINK_TTL_MS;
    this.random = opts.random ?? ((size) => randomBytes(size));
  }

  /** Stores a fresh link's grant for `who`; answers its token (`link` of `/settings/open`). */
  async issue(who: LinkedPerson): Promise<string> {
    const person = [who.team, who.user, who.epoch];
    if (!personSchema.safeParse(person).success) {
      throw new RangeError(`SettingsLinks: cannot issue a link for ${who.team}/${who.user}`);
    }
    const token = Buffer.from(this.random(LINK_BYTES)).toString("base64url");
    const expiresAt = this.clock.now() + this.ttlMs;
    await this.marks.grant(grantIdOf(token), JSON.stringify(person), expiresAt);
    return token;
  }

  /**
   * Takes `token`'s grant; answers whom it signs in. Throws a SettingsLinkError (`malformed`,
   * `unknown`, `expired`, `replayed`).
   */
  async consume(token: string | undefined): Promise<LinkedPerson> {
    if (token === undefined || !LINK_FORM.test(token)) {
      throw new SettingsLinkError("malformed", "not a link this app made");
    }
    const taken = await this.marks.take(grantIdOf(token), this.clock.now());
    if (!taken.ok) throw new SettingsLinkError(...REFUSALS[taken.reason]);
    let json: unknown;
    try {
      json = JSON.parse(taken.payload);
    } catch {
      json = undefined;
    }
    const parsed = personSchema.safeParse(json);
    if (!parsed.success) throw new SettingsLinkError("malformed", "its grant is not a person");
    const [team, user, epoch] = parsed.data;
    return { team, user, epoch };
  }
}

/**
 * The Home tab's "Open settings" address for `who`, made where the Home tab is published (one
 * write: the link's grant), or undefined when the app has no front door to sign in to.
 */
export async function homeSettingsLink(app: App, who: LinkedPerson): Promise<string | undefined> {
  const parts = app.frontDoor;
  const base = app.config.PUBLIC_BASE_URL;
  if (parts === undefined || base === undefined) return undefined;
  const links = new SettingsLinks({ clock: app.clock, marks: parts.marks });
  const url = new URL(SETTINGS_LINK_PATH, base);
  url.searchParams.set("link", await links.issue(who));
  return url.href;
}
