/**
 * Why an HTTP request was refused. Every refusal of a webhook or admin route is a WebhookError
 * with one of these codes; `httpStatus` (functions/shared/http-errors.ts) maps each (and
 * each use-case AppError code) to its status, so the status of a refusal is decided in exactly
 * one place. The codes live here, below the use cases, because the calendar providers' push
 * checks refuse with them too.
 */
export type WebhookErrorCode =
  | "missing_signature"
  | "malformed_signature"
  | "stale_timestamp"
  | "bad_signature"
  | "bad_channel_token"
  | "bad_client_state"
  | "bad_request"
  | "unauthorized"
  | "forbidden"
  | "unknown_channel"
  | "unknown_source"
  | "unknown_user"
  | "no_secret"
  | "not_found"
  | "method_not_allowed";

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

/**
 * A body, form or path parameter that does not have the documented shape: the one "bad input"
 * error of every HTTP route (400). `pointer` is the JSON Pointer of the field ("" for the whole).
 */
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

/** A method the route does not declare: 405 with an `Allow` header naming those it does. */
export class MethodNotAllowed extends WebhookError {
  override name = "MethodNotAllowed";
  constructor(
    readonly method: string,
    readonly allow: readonly string[],
  ) {
    super(
      "method_not_allowed",
      `${method.slice(0, 16)} is not allowed here; use ${allow.join(" or ")}`,
    );
  }
}
