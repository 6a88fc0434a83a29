/** A sync failure that is worth retrying (network, timeout, the calendar's server failing). */
export class SyncError extends Error {
  override name = "SyncError";
  constructor(
    readonly code: "fetch_failed" | "timeout" | "upstream_status",
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A source or channel kind that no registered provider has. */
export class UnknownProviderError extends Error {
  override name = "UnknownProviderError";
  readonly code = "unknown_provider";
  constructor(
    readonly kind: string,
    readonly known: readonly string[],
  ) {
    super(`no calendar provider of kind "${kind}": the kinds are ${known.join(", ")}`);
  }
}

/** What went wrong in a calendar provider's API call or OAuth exchange. */
export type ProviderErrorCode =
  /** The refresh token is dead (revoked, expired): the source needs reconnecting. */
  | "invalid_grant"
  /** The stored cursor (Google 410 Gone, Graph's delta token) is no longer valid: read in full. */
  | "sync_token_expired"
  /** The provider asks us to slow down (Google 403 rateLimitExceeded / 429, Graph 429). */
  | "rate_limited"
  /** The access token was refused (401): refresh it and retry once. */
  | "unauthorized"
  /** Any other failing answer from the provider. */
  | "upstream_status";

/** A calendar provider's API or OAuth failure, with its typed data. */
export class ProviderError extends Error {
  override name = "ProviderError";
  constructor(
    readonly code: ProviderErrorCode,
    message: string,
    readonly data: { status?: number; retryAfterS?: number } = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
  get status(): number | undefined {
    return this.data.status;
  }
  get retryAfterS(): number | undefined {
    return this.data.retryAfterS;
  }
}
