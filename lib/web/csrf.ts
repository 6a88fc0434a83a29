import { checkKey, constantTimeEqual, macOf } from "./mac";
import type { Session } from "./session";

/** The name of the hidden input every form of the settings page carries. */
export const CSRF_FIELD = "csrf";

/** What a token authorises; one per family of forms, so a token of one is no good for another. */
export type CsrfPurpose = "settings";

/**
 * CSRF tokens: the HMAC of the session (team, user, session id, epoch) and a purpose. Nothing is
 * stored: a token is valid exactly as long as its session, and is worthless in another user's
 * session, in a later sign-in, or after a disconnect moved the epoch.
 */
export class CsrfTokens {
  private readonly key: string;

  constructor(opts: { key: string }) {
    checkKey(opts.key, "CsrfTokens");
    this.key = opts.key;
  }

  tokenFor(session: Session, purpose: CsrfPurpose = "settings"): string {
    const subject = JSON.stringify([
      session.team,
      session.user,
      session.sessionId,
      session.epoch,
      purpose,
    ]);
    return macOf(this.key, "csrf", subject);
  }

  /** True when `token` (a form field, of any type) is this session's token for `purpose`. */
  verify(session: Session, token: unknown, purpose: CsrfPurpose = "settings"): boolean {
    if (typeof token !== "string") return false;
    return constantTimeEqual(this.tokenFor(session, purpose), token);
  }
}
