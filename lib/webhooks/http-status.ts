import type { AppError } from "../app/errors";
import type { WebhookErrorCode } from "../http/errors";

/**
 * The one map from refusal codes (ours and the use cases') to HTTP status. It sits above the
 * use cases because it names their error codes; the codes of a refused request, and the errors
 * that carry them, live below (lib/http/errors.ts) so the calendar providers can throw them.
 */
const STATUS: Record<WebhookErrorCode | AppError["code"], number> = {
  bad_request: 400,
  invalid_input: 400,
  missing_signature: 401,
  malformed_signature: 401,
  stale_timestamp: 401,
  bad_signature: 401,
  bad_channel_token: 401,
  bad_client_state: 401,
  unauthorized: 401,
  forbidden: 403,
  no_secret: 403,
  unknown_channel: 404,
  unknown_source: 404,
  unknown_user: 404,
  unknown_entry: 404,
  not_found: 404,
  method_not_allowed: 405,
};

export const httpStatus = (code: WebhookErrorCode | AppError["code"]): number => STATUS[code];
