/**
 * Errors of the web front door (install state, session cookie, CSRF token, settings link). Every
 * refusal has a typed `code`; `httpStatus` is what a route answers for it.
 */
export type WebErrorCode =
  /** Not of the form this module writes (cut, altered encoding, wrong version). */
  | "malformed"
  /** Well formed, but its MAC is not ours: forged, altered, or made under another key. */
  | "bad_signature"
  /** Well formed, but no such one was ever stored (a stored one-time link). */
  | "unknown"
  /** Genuine, but past its expiry. */
  | "expired"
  /** Genuine and fresh, but already used once. */
  | "replayed";

export class WebError extends Error {
  override name = "WebError";
  constructor(
    readonly code: WebErrorCode,
    readonly httpStatus: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A Home tab's one-time settings link that signs nobody in: the sign-in page answers it. */
export class SettingsLinkError extends WebError {
  override name = "SettingsLinkError";
  constructor(code: WebErrorCode, message: string) {
    super(code, 400, `settings link refused (${code}): ${message}`);
  }
}

/** The install `state` came back unusable: the callback answers the 400 page. */
export class OAuthStateError extends WebError {
  override name = "OAuthStateError";
  constructor(code: WebErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, 400, `install state refused (${code}): ${message}`, options);
  }
}
