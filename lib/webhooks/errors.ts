/** Why a signed request was refused. Handlers map every code to 401, except `malformed` (400). */
export type WebhookErrorCode =
  | "missing_signature"
  | "malformed_signature"
  | "stale_timestamp"
  | "bad_signature"
  | "bad_channel_token"
  | "bad_client_state";

export class WebhookError extends Error {
  override name = "WebhookError";
  constructor(
    readonly code: WebhookErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The request is older (or further in the future) than the replay window allows. */
export class StaleTimestampError extends WebhookError {
  override name = "StaleTimestampError";
  constructor(
    readonly ageS: number,
    options?: { cause?: unknown },
  ) {
    super("stale_timestamp", `request timestamp is ${ageS}s away from now (limit 300s)`, options);
  }
}
