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
