import * as z from "zod";
import type { Clock } from "#lib/core/clock";
import type { WebErrorCode } from "./errors";
import { constantTimeEqual, MacSigner, macOf } from "./mac";

/** How long a session cookie is honoured after the sign-in that set it. */
export const SESSION_MAX_AGE_MS = 30 * 24 * 60 * 60_000;

/** Cookie names: `__Host-` (Secure, Path=/, no Domain) binds it to this origin over https. */
export const SESSION_COOKIE = "statuspilot_session";
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** Browsers keep cookies up to 4096 bytes; anything longer is not ours. */
const MAX_VALUE_LENGTH = 1024;

export interface Session {
  team: string;
  user: string;
  /** Random per sign-in; the CSRF tokens are bound to it. */
  sessionId: string;
  /** Epoch ms. */
  issuedAt: number;
  /** The user's session epoch at sign-in; a session of an older epoch is refused. */
  epoch: number;
}

export type SessionRead =
  | { ok: true; session: Session }
  | { ok: false; reason: "absent" | Exclude<WebErrorCode, "replayed"> };

export interface SessionCookieOptions {
  /** The front door's secret (at least 32 characters); shared with state and CSRF, by label. */
  key: string;
  clock: Clock;
  /** True when served over https: the cookie is then Secure and named `__Host-…`. */
  secure: boolean;
  maxAgeMs?: number;
  random?: (size: number) => Uint8Array;
}

const id = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/);
const epochMs = z.number().int().min(0).max(8.64e15);
/** The signed payload: [team, user, sessionId, issuedAt, epoch]. */
const payloadSchema = z.tuple([id, id, z.string().regex(/^[A-Za-z0-9_-]{22}$/), epochMs, epochMs]);
const VALUE_FORM = /^1\.([A-Za-z0-9_-]{1,900})\.([A-Za-z0-9_-]{43})$/;

/**
 * The session cookie: who is signed in, signed with HMAC so nobody can make or alter one.
 * Reading never throws: any bad input is "no session", with the reason for the log.
 *
 * A session also carries the user's session epoch; the route compares it with the user record's
 * (`isCurrent`), so disconnecting (which moves the epoch) ends every session at once. Signing out
 * ends one session only, by a mark of its id (`endMark`), which the route checks too. The epoch
 * must never repeat for a user, even after deletion: use an instant (e.g. when the user record
 * was created or last disconnected), not a counter that restarts at 0.
 */
export class SessionCookies extends MacSigner {
  readonly name: string;
  private readonly secure: boolean;
  private readonly maxAgeMs: number;

  constructor(opts: SessionCookieOptions) {
    super(opts, "SessionCookies");
    this.secure = opts.secure;
    this.maxAgeMs = opts.maxAgeMs ?? SESSION_MAX_AGE_MS;
    this.name = opts.secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
  }

  /** A new session for a sign-in, and the `Set-Cookie` header value that carries it. */
  issue(who: { team: string; user: string; epoch: number }): {
    session: Session;
    setCookie: string;
  } {
    const session: Session = {
      team: who.team,
      user: who.user,
      sessionId: Buffer.from(this.random(16)).toString("base64url"),
      issuedAt: this.clock.now(),
      epoch: who.epoch,
    };
    const payload = [
      session.team,
      session.user,
      session.sessionId,
      session.issuedAt,
      session.epoch,
    ];
    if (!payloadSchema.safeParse(payload).success) {
      throw new RangeError(`SessionCookies: cannot issue a session for ${who.team}/${who.user}`);
    }
    const body = Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
    const value = `1.${body}.${macOf(this.key, "session", `1.${body}`)}`;
    return { session, setCookie: this.serialise(value, Math.floor(this.maxAgeMs / 1000)) };
  }

  /** The `Set-Cookie` value that removes the session (sign-out, disconnect). */
  clear(): string {
    return this.serialise("", 0);
  }

  /**
   * The one-time mark that ends `session` before its time (sign-out): a copy of the cookie kept
   * or replayed is then refused, while the person's other sessions (another browser, the phone)
   * go on. The mark lives as long as the cookie could: after that the cookie is refused anyway.
   */
  endMark(session: Session): { id: string; expiresAt: number } {
    return {
      id: `session-ended#${session.sessionId}`,
      expiresAt: session.issuedAt + this.maxAgeMs,
    };
  }

  /**
   * The session in a request's cookies: a `Cookie` header, or API Gateway v2's `cookies` array.
   * The first valid cookie of our name wins; a forged, expired or garbled one is no session.
   */
  read(cookies: string | readonly string[] | undefined | null): SessionRead {
    let worst: SessionRead = { ok: false, reason: "absent" };
    for (const value of cookieValues(cookies, this.name)) {
      const read = this.verify(value);
      if (read.ok) return read;
      worst = read;
    }
    return worst;
  }

  private verify(value: string): SessionRead {
    const match = value.length > MAX_VALUE_LENGTH ? null : VALUE_FORM.exec(value);
    const [, body, mac] = match ?? [];
    if (body === undefined || mac === undefined) return { ok: false, reason: "malformed" };
    if (!constantTimeEqual(macOf(this.key, "session", `1.${body}`), mac)) {
      return { ok: false, reason: "bad_signature" };
    }
    let json: unknown;
    try {
      json = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
    } catch {
      return { ok: false, reason: "malformed" };
    }
    const parsed = payloadSchema.safeParse(json);
    if (!parsed.success) return { ok: false, reason: "malformed" };
    const [team, user, sessionId, issuedAt, epoch] = parsed.data;
    const now = this.clock.now();
    // A session from the future (a clock far ahead when it was made) is not honoured either.
    if (now - issuedAt >= this.maxAgeMs || issuedAt - now > 5 * 60_000) {
      return { ok: false, reason: "expired" };
    }
    return { ok: true, session: { team, user, sessionId, issuedAt, epoch } };
  }

  private serialise(value: string, maxAgeS: number): string {
    const attributes = [`${this.name}=${value}`, "Path=/", `Max-Age=${maxAgeS}`, "HttpOnly"];
    attributes.push("SameSite=Lax");
    if (this.secure) attributes.push("Secure");
    return attributes.join("; ");
  }
}

/** True when the session was made under the user's current session epoch. */
export const isCurrentSession = (session: Session, currentEpoch: number): boolean =>
  session.epoch === currentEpoch;

/** The values of every cookie named `name`, from a Cookie header or a list of `name=value`. */
export function cookieValues(
  cookies: string | readonly string[] | undefined | null,
  name: string,
): string[] {
  if (cookies === undefined || cookies === null) return [];
  const pairs = (typeof cookies === "string" ? [cookies] : cookies).flatMap((c) =>
    typeof c === "string" ? c.split(";") : [],
  );
  const values: string[] = [];
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq < 0 || pair.slice(0, eq).trim() !== name) continue;
    let value = pair.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"'))
      value = value.slice(1, -1);
    values.push(value);
  }
  return values;
}
