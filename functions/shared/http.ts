import middy from "@middy/core";
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
} from "aws-lambda";
import { z } from "zod";
import { AppError, InvalidInputError } from "../../lib/app/errors";
import { type App, getApp } from "../../lib/app/root";
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

/** Maps errors to HTTP; anything unexpected is logged (without the body) and answered 500. */
export function errorToResult(error: unknown, app: App | undefined): HttpResult {
  if (error instanceof WebhookInputError) {
    return json(400, { error: error.code, message: error.message, pointer: error.pointer });
  }
  if (error instanceof WebhookError) {
    return json(webhookStatus(error.code), { error: error.code, message: error.message });
  }
  if (error instanceof InvalidInputError) {
    return json(400, { error: error.code, message: error.message, pointer: error.pointer });
  }
  if (error instanceof AppError) {
    return json(APP_ERROR_STATUS[error.code], { error: error.code, message: error.message });
  }
  if (error instanceof BadRequest) {
    return json(400, { error: "bad_request", message: error.message, pointer: error.pointer });
  }
  if (error instanceof HttpRefusal) {
    return json(error.status, { error: error.code, message: error.message });
  }
  app?.log.error("handler failed", {
    error: error instanceof Error ? { name: error.name, message: error.message } : String(error),
  });
  return json(500, { error: "internal_error" });
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
