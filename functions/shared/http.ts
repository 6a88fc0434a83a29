import middy from "@middy/core";
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from "aws-lambda";
import * as z from "zod";
import { AppError, InvalidInputError } from "../../lib/app/errors";
import { type App, getApp } from "../../lib/app/root";
import { StoreError } from "../../lib/store/errors";
import {
  constantTimeEqual,
  header,
  WebhookError,
  WebhookInputError,
  type WebhookReply,
  webhookStatus,
} from "../../lib/webhooks";

/** The parts of an API Gateway v2 (payload 2.0) event the handlers read. */
export const httpEventSchema = z.object({
  /** `METHOD /path/{param}` of the route API Gateway matched; handlers dispatch on it. */
  routeKey: z.string().default(""),
  rawPath: z.string().default("/"),
  headers: z.record(z.string(), z.string()).default({}),
  queryStringParameters: z.record(z.string(), z.string()).optional(),
  pathParameters: z.record(z.string(), z.string()).optional(),
  body: z.string().optional(),
  isBase64Encoded: z.boolean().default(false),
  requestContext: z
    .object({
      http: z.object({ method: z.string() }).optional(),
      authorizer: z
        .object({ iam: z.object({ userArn: z.string().optional() }).loose().optional() })
        .loose()
        .optional(),
    })
    .loose()
    .default({}),
});

export interface HttpRequest {
  method: string;
  /**
   * The matched route, e.g. `POST /hooks/generic/{sourceId}`. Dispatch on it, never on `path`:
   * API Gateway decodes `%2F` in the path, so a parameter can make it end like another route.
   */
  routeKey: string;
  path: string;
  /** Lower-cased names. */
  headers: Record<string, string>;
  query: Record<string, string>;
  params: Record<string, string>;
  /** The body exactly as sent: signatures are computed over it. */
  rawBody: string;
  iamCaller: string | undefined;
}

export type HttpResult = APIGatewayProxyStructuredResultV2;

/** Input the handler refuses with 400 and a precise message. */
export class BadRequest extends Error {
  override name = "BadRequest";
  constructor(
    message: string,
    readonly pointer?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Refused with a chosen status (401, 403, 404) and a short code. */
export class HttpRefusal extends Error {
  override name = "HttpRefusal";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A method the route does not declare: 405 with an `Allow` header naming those it does. */
export class MethodNotAllowed extends HttpRefusal {
  override name = "MethodNotAllowed";
  constructor(
    readonly method: string,
    readonly allow: readonly string[],
  ) {
    super(
      405,
      "method_not_allowed",
      `${method.slice(0, 16)} is not allowed here; use ${allow.join(" or ")}`,
    );
  }
}

/**
 * Refuses any method but `allow` before the body is read. API Gateway routes only declared
 * methods, but the local gateway and other routes on the same function reach the handler too.
 */
export function requireMethod(req: HttpRequest, allow: readonly string[]): void {
  if (!allow.includes(req.method)) throw new MethodNotAllowed(req.method, allow);
}

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

export const json = (statusCode: number, body: unknown): HttpResult => ({
  statusCode,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

export const text = (statusCode: number, body: string): HttpResult => ({
  statusCode,
  headers: { "content-type": "text/plain; charset=utf-8" },
  body,
});

export function toRequest(event: z.infer<typeof httpEventSchema>): HttpRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(event.headers)) headers[k.toLowerCase()] = v;
  return {
    method: event.requestContext.http?.method.toUpperCase() ?? "GET",
    routeKey: event.routeKey,
    path: event.rawPath,
    headers,
    query: event.queryStringParameters ?? {},
    params: event.pathParameters ?? {},
    rawBody: event.isBase64Encoded
      ? Buffer.from(event.body ?? "", "base64").toString("utf8")
      : (event.body ?? ""),
    iamCaller: event.requestContext.authorizer?.iam?.userArn,
  };
}

/** Parses `text` as JSON against `schema`, turning either failure into a precise 400. */
export function parseJsonBody<S extends z.ZodType>(schema: S, raw: string): z.infer<S> {
  let doc: unknown;
  try {
    doc = JSON.parse(raw);
  } catch (error: unknown) {
    throw new BadRequest("body is not valid JSON", "", { cause: error });
  }
  return parseWith(schema, doc);
}

export function parseWith<S extends z.ZodType>(schema: S, doc: unknown): z.infer<S> {
  const parsed = schema.safeParse(doc);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const pointer = issue ? `/${issue.path.map(String).join("/")}` : "";
  throw new BadRequest(`${pointer || "/"}: ${issue?.message ?? "invalid"}`, pointer, {
    cause: parsed.error,
  });
}

/**
 * The admin API's guard. On AWS the HTTP API's IAM authorizer has already checked the caller;
 * locally (ADMIN_API_KEY set) the `x-api-key` header must match.
 */
export function requireAdmin(req: HttpRequest, app: App): void {
  const expected = app.config.ADMIN_API_KEY;
  if (expected !== undefined) {
    if (!constantTimeEqual(expected, header(req.headers, "x-api-key") ?? "")) {
      throw new HttpRefusal(401, "unauthorized", "missing or wrong x-api-key");
    }
  } else if (!req.iamCaller) {
    throw new HttpRefusal(403, "forbidden", "the admin API requires IAM authorization");
  }
}

/** A webhook use case's reply as an API Gateway result. */
export const toResult = (reply: WebhookReply): HttpResult =>
  "text" in reply ? text(reply.status, reply.text) : json(reply.status, reply.json);

const APP_ERROR_STATUS: Record<AppError["code"], number> = {
  invalid_input: 400,
  unknown_user: 404,
  unknown_entry: 404,
};

/** How a refused request is answered: a 4xx, a JSON body with its code, maybe an Allow. */
interface Refusal {
  status: number;
  body: { error: string; message?: string; pointer?: string };
  allow?: string;
}

/** The refusal for an error that refuses the request, or undefined for anything else. */
function refusalOf(error: unknown): Refusal | undefined {
  if (error instanceof WebhookInputError) {
    return {
      status: 400,
      body: { error: error.code, message: error.message, pointer: error.pointer },
    };
  }
  if (error instanceof WebhookError) {
    return {
      status: webhookStatus(error.code),
      body: { error: error.code, message: error.message },
    };
  }
  if (error instanceof InvalidInputError) {
    return {
      status: 400,
      body: { error: error.code, message: error.message, pointer: error.pointer },
    };
  }
  if (error instanceof AppError) {
    return {
      status: APP_ERROR_STATUS[error.code],
      body: { error: error.code, message: error.message },
    };
  }
  if (error instanceof BadRequest) {
    const body = { error: "bad_request", message: error.message };
    return {
      status: 400,
      body: error.pointer === undefined ? body : { ...body, pointer: error.pointer },
    };
  }
  if (error instanceof MethodNotAllowed) {
    return {
      status: 405,
      body: { error: error.code, message: error.message },
      allow: error.allow.join(", "),
    };
  }
  if (error instanceof HttpRefusal) {
    return { status: error.status, body: { error: error.code, message: error.message } };
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
export function errorToResult(error: unknown, app: App | undefined): HttpResult {
  const refusal = refusalOf(error);
  if (refusal === undefined) {
    app?.log.error("handler failed", {
      error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
    });
    return json(500, { error: "internal_error" });
  }
  if (isStoreValidationFailure(error)) {
    // A safety net behind the schemas' bounds: a schema should have said why, so say it here.
    const cause = (error as StoreError).cause as Error;
    app?.log.warn("store refused the request's input", {
      error: { name: cause.name, message: cause.message.slice(0, 200) },
    });
  }
  app?.log.info("request refused", { status: refusal.status, error: refusal.body.error });
  const result = json(refusal.status, refusal.body);
  return refusal.allow === undefined
    ? result
    : { ...result, headers: { ...result.headers, allow: refusal.allow } };
}

/**
 * The middy chain every HTTP function shares: zod-parse the event (400 when it is not an HTTP
 * API event), build the app once, run `fn`, map errors to status codes.
 */
export function httpHandler(fn: (req: HttpRequest, app: App) => Promise<HttpResult>) {
  return middy<APIGatewayProxyEventV2, HttpResult, Error, Context>().handler(async (event) => {
    const parsed = httpEventSchema.safeParse(event);
    if (!parsed.success)
      return json(400, { error: "bad_request", message: "not an HTTP API event" });
    let app: App | undefined;
    try {
      app = await getApp();
      app.log.resetKeys();
      return await fn(toRequest(parsed.data), app);
    } catch (error: unknown) {
      return errorToResult(error, app);
    }
  });
}
