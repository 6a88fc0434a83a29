/** Why a webhook request was refused; `webhookStatus` maps each code to its HTTP status. */
export type WebhookErrorCode =
  | "missing_signature"
  | "malformed_signature"
  | "stale_timestamp"
  | "bad_signature"
  | "bad_channel_token"
  | "bad_client_state"
  | "bad_request"
  | "unknown_channel"
  | "no_secret"
  | "not_found";

const STATUS: Record<WebhookErrorCode, number> = {
  missing_signature: 401,
  malformed_signature: 401,
  stale_timestamp: 401,
  bad_signature: 401,
  bad_channel_token: 401,
  bad_client_state: 401,
  bad_request: 400,
  unknown_channel: 404,
  no_secret: 403,
  not_found: 404,
};

export const webhookStatus = (code: WebhookErrorCode): number => STATUS[code];

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

/** A body or form that does not have the documented shape; `pointer` names the field. */
export class WebhookInputError extends WebhookError {
  override name = "WebhookInputError";
  constructor(
    message: string,
    readonly pointer: string,
    options?: { cause?: unknown },
  ) {
    super("bad_request", message, options);
  }
}
