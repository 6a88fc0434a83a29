import { ParseError } from "@aws-lambda-powertools/parser/errors";
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { AppLog } from "#lib/app/compose/logger";
import { AppError, InvalidInputError } from "#lib/app/errors";
import { StoreError } from "#lib/store/errors";
import {
  MethodNotAllowed,
  WebhookError,
  type WebhookErrorCode,
  WebhookInputError,
} from "../../lib/webhooks";

export type HttpResult = APIGatewayProxyStructuredResultV2;

/**
 * The one map from refusal codes (ours and the use cases') to HTTP status, beside the one place
 * that answers a refusal. The codes and the errors that carry them live lower down
 * (lib/http/errors.ts, lib/app/errors.ts); only the answer to them is HTTP's business.
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

export const json = (statusCode: number, body: unknown): HttpResult => ({
  statusCode,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

/**
 * DynamoDB refused the request's shape (a key over its size limits, an item too large): the
 * input is at fault, and a retry would fail the same way. Outages and throttling are not this.
 */
export function isStoreValidationFailure(error: unknown): boolean {
  return (
    error instanceof StoreError &&
    error.code === "dynamodb_failed" &&
    error.cause instanceof Error &&
    error.cause.name === "ValidationException"
  );
}

/** How a refused request is answered: a 4xx, a JSON body with its code, maybe an Allow. */
interface Refusal {
  status: number;
  body: { error: string; message?: string; pointer?: string };
  allow?: string;
}

/**
 * The refusal for an error that refuses the request, or undefined for anything else. The status
 * of every code comes from the one map, `httpStatus` (above).
 */
function refusalOf(error: unknown): Refusal | undefined {
  if (error instanceof ParseError) {
    // The parser middleware's: the input is not an HTTP API event at all.
    return { status: 400, body: { error: "bad_request", message: "not an HTTP API event" } };
  }
  if (error instanceof MethodNotAllowed) {
    return {
      status: httpStatus(error.code),
      body: { error: error.code, message: error.message },
      allow: error.allow.join(", "),
    };
  }
  if (error instanceof WebhookError || error instanceof AppError) {
    const pointer =
      error instanceof WebhookInputError || error instanceof InvalidInputError
        ? { pointer: error.pointer }
        : {};
    return {
      status: httpStatus(error.code),
      body: { error: error.code, message: error.message, ...pointer },
    };
  }
  if (isStoreValidationFailure(error)) {
    const message = "an identifier or value in the request is too large or malformed";
    return { status: 400, body: { error: "invalid_input", message } };
  }
  return undefined;
}

/**
 * Maps errors to HTTP. A refusal is logged as one line with its status and code (never the
 * message, which may quote input); anything unexpected is logged and answered 500.
 */
export function errorToResult(error: unknown, log: AppLog | undefined): HttpResult {
  const refusal = refusalOf(error);
  if (refusal === undefined) {
    log?.error("handler failed", {
      error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
    });
    return json(500, { error: "internal_error" });
  }
  if (isStoreValidationFailure(error)) {
    // A safety net behind the schemas' bounds: a schema should have said why, so say it here.
    const cause = (error as StoreError).cause as Error;
    log?.warn("store refused the request's input", {
      error: { name: cause.name, message: cause.message.slice(0, 200) },
    });
  }
  if (!(error instanceof ParseError)) {
    log?.info("request refused", { status: refusal.status, error: refusal.body.error });
  }
  const result = json(refusal.status, refusal.body);
  return refusal.allow === undefined
    ? result
    : { ...result, headers: { ...result.headers, allow: refusal.allow } };
}
