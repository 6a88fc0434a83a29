/**
 * Error bodies as Google's APIs answer them. The Calendar API's are the "two levels" of its
 * error guide: the HTTP status, and a JSON body `{error: {errors: [{domain, reason, message,
 * locationType?, location?}], code, message}}`. The OAuth endpoints answer RFC 6749's
 * `{error, error_description}`.
 */

export interface ApiErrorDetail {
  domain: string;
  reason: string;
  message: string;
  locationType?: "header" | "parameter";
  location?: string;
}

/** A Calendar API refusal: its HTTP status, body and any extra headers. */
export class GoogleApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: ApiErrorDetail,
    readonly headers: Record<string, string> = {},
  ) {
    super(detail.message);
    this.name = "GoogleApiError";
  }

  get body(): { error: { errors: ApiErrorDetail[]; code: number; message: string } } {
    return { error: { errors: [this.detail], code: this.status, message: this.detail.message } };
  }
}

export const badRequest = (reason: string, message: string, location?: string) =>
  new GoogleApiError(400, {
    domain: "global",
    reason,
    message,
    ...(location ? { locationType: "parameter" as const, location } : {}),
  });

/** No Authorization header at all. */
export const loginRequired = () =>
  new GoogleApiError(
    401,
    {
      domain: "global",
      reason: "required",
      message: "Login Required.",
      locationType: "header",
      location: "Authorization",
    },
    { "www-authenticate": 'Bearer realm="https://accounts.google.com/"' },
  );

/** A token that is unknown, expired or revoked (the error guide's "401: Invalid Credentials"). */
export const invalidCredentials = () =>
  new GoogleApiError(
    401,
    {
      domain: "global",
      reason: "authError",
      message: "Invalid Credentials",
      locationType: "header",
      location: "Authorization",
    },
    { "www-authenticate": 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
  );

export const insufficientPermissions = () =>
  new GoogleApiError(403, {
    domain: "global",
    reason: "insufficientPermissions",
    message: "Request had insufficient authentication scopes.",
  });

export const notFound = (message = "Not Found") =>
  new GoogleApiError(404, { domain: "global", reason: "notFound", message });

/** "410: Gone": the sync token is no longer valid. */
export const fullSyncRequired = () =>
  new GoogleApiError(410, {
    domain: "global",
    reason: "fullSyncRequired",
    message: "Sync token is no longer valid, a full sync is required.",
    locationType: "parameter",
    location: "syncToken",
  });

/** "403: Rate Limit Exceeded" / "403: User Rate Limit Exceeded" / "429: Too many requests". */
export function rateLimited(
  status: 403 | 429,
  reason: "rateLimitExceeded" | "userRateLimitExceeded",
  retryAfterS?: number,
): GoogleApiError {
  const message =
    reason === "rateLimitExceeded" ? "Rate Limit Exceeded" : "User Rate Limit Exceeded";
  const headers: Record<string, string> =
    retryAfterS === undefined ? {} : { "retry-after": String(retryAfterS) };
  return new GoogleApiError(status, { domain: "usageLimits", reason, message }, headers);
}

/** An OAuth token endpoint refusal (RFC 6749 5.2, with Google's descriptions). */
export class OAuthTokenError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly code: string,
    readonly description: string,
  ) {
    super(`${code}: ${description}`);
    this.name = "OAuthTokenError";
  }

  get body(): { error: string; error_description: string } {
    return { error: this.code, error_description: this.description };
  }
}
