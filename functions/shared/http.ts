import { parser } from "@aws-lambda-powertools/parser/middleware";
import middy, { type MiddlewareObj } from "@middy/core";
import httpErrorHandler from "@middy/http-error-handler";
import httpHeaderNormalizer from "@middy/http-header-normalizer";
import httpRouterHandler, { type Method } from "@middy/http-router";
import type { Context } from "aws-lambda";
import type { App } from "#lib/app/compose/app";
import {
  constantTimeEqual,
  header,
  MethodNotAllowed,
  WebhookError,
  type WebhookReply,
} from "../../lib/webhooks";
import { type AppSource, appIn, appOf, withApp } from "./app-context";
import { everyResponse } from "./every-response";
import { errorToResult, type HttpResult, json } from "./http-errors";
import {
  type HttpEvent,
  type HttpEventIn,
  type HttpRequest,
  httpEventSchema,
  toRequest,
} from "./http-event";

export type { AppSource } from "./app-context";
export { errorToResult, type HttpResult, isStoreValidationFailure, json } from "./http-errors";
export { type HttpRequest, httpEventSchema, toRequest } from "./http-event";

export const text = (statusCode: number, body: string): HttpResult => ({
  statusCode,
  headers: { "content-type": "text/plain; charset=utf-8" },
  body,
});

/** A webhook use case's reply as an API Gateway result. */
export const toResult = (reply: WebhookReply): HttpResult =>
  "text" in reply ? text(reply.status, reply.text) : json(reply.status, reply.json);

export type HttpFn = (req: HttpRequest, app: App) => Promise<HttpResult>;

/** A webhook use case (lib/webhooks) as a route handler. */
export const replying =
  (useCase: (req: HttpRequest, app: App) => Promise<WebhookReply>): HttpFn =>
  async (req, app) =>
    toResult(await useCase(req, app));

/**
 * The admin API's guard. On AWS the HTTP API's IAM authorizer has already checked the caller;
 * locally (ADMIN_API_KEY set) the `x-api-key` header must match.
 */
export function requireAdmin(req: HttpRequest, app: App): void {
  const expected = app.config.ADMIN_API_KEY;
  if (expected !== undefined) {
    if (!constantTimeEqual(expected, header(req.headers, "x-api-key") ?? "")) {
      throw new WebhookError("unauthorized", "missing or wrong x-api-key");
    }
  } else if (!req.iamCaller) {
    throw new WebhookError("forbidden", "the admin API requires IAM authorization");
  }
}

/** Answers every error the handler throws: refusals by the one map, anything else with 500. */
const refusals = (): MiddlewareObj<HttpEventIn, HttpResult> => ({
  onError: (request) => {
    request.response = errorToResult(request.error, appOf(request.context)?.log);
  },
});

/**
 * The middy chain every HTTP function shares. The parser middleware checks the event (400 when
 * it is not an HTTP API event, before the app is built), the header normaliser lower-cases
 * header names, `withApp` gets the app from `source` and injects the Lambda context into its
 * logger, and `refusals` maps errors to status codes. http-error-handler is the net behind it
 * all: it answers (500) anything thrown where `refusals` could not answer. `everyResponse`, first
 * and so last to run, puts the headers every answer carries (nosniff) on whatever answered.
 */
export function httpHandler(source: AppSource, fn: HttpFn) {
  return middy<HttpEventIn, HttpResult, Error, Context>()
    .use(everyResponse())
    .use(httpErrorHandler({ logger: false, fallbackMessage: '{"error":"internal_error"}' }))
    .use(parser({ schema: httpEventSchema }) as unknown as MiddlewareObj<HttpEventIn, HttpResult>)
    .use(httpHeaderNormalizer())
    .use(withApp(source))
    .use(refusals())
    .handler(async (event, context) => {
      const app = appIn(context);
      return fn(toRequest(event as unknown as HttpEvent), app);
    });
}

/** A route a function serves: the method and the API Gateway route path (routes.ts). */
export interface HttpRoute {
  method: Exclude<Method, "ANY">;
  path: string;
  handler: HttpFn;
}

/** The methods `routes` serve on `path`, in table order (the order `Allow` names them). */
export const methodsAt = (routes: readonly HttpRoute[], path: string): string[] =>
  routes.filter((r) => r.path === path).map((r) => r.method);

const ROUTABLE = new Set<string>(["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "HEAD"]);

/** The route path of a route key (`POST /hooks/graph` → `/hooks/graph`), "" without one. */
const routePath = (routeKey: string): string =>
  routeKey.startsWith("/") ? routeKey : routeKey.slice(routeKey.indexOf(" ") + 1);

/**
 * Dispatches with @middy/http-router on the route API Gateway matched (the route key's path, so
 * a `%2F` in a parameter cannot reach another route) and the request's method. A path served
 * with other methods answers 405 with `Allow`, any other path 404. `byRouteKey` takes the method
 * from the route key too, and answers 404 for any route key not in the table.
 */
export function routed(
  routes: readonly HttpRoute[],
  opts: { notFound: string; byRouteKey?: boolean },
): HttpFn {
  type Routing = {
    version: "2.0";
    requestContext: { http: { method: string; path: string } };
    call: { req: HttpRequest; app: App };
  };
  const notFound = ({ method, path }: { method: string; path: string }): never => {
    const allow = methodsAt(routes, path);
    if (allow.length > 0 && !opts.byRouteKey) throw new MethodNotAllowed(method, allow);
    throw new WebhookError("not_found", opts.notFound);
  };
  const router = httpRouterHandler({
    routes: routes.map((r) => ({
      method: r.method,
      path: r.path,
      handler: async ({ call }: Routing) => r.handler(call.req, call.app),
    })),
    notFoundResponse: notFound,
  } as never) as unknown as (event: Routing, context: unknown) => Promise<HttpResult>;
  return async (req, app) => {
    const path = routePath(req.routeKey);
    const method = opts.byRouteKey ? (req.routeKey.split(" ")[0] ?? "") : req.method;
    // The router refuses what is not an HTTP method or has no path; both are simply not routes.
    if (!ROUTABLE.has(method) || path === "") return notFound({ method, path });
    return router(
      { version: "2.0", requestContext: { http: { method, path } }, call: { req, app } },
      {},
    );
  };
}
