import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Clock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";
import { silentLog } from "#lib/core/ports";
import {
  fromHandlerResult,
  type RouteSpec,
  RouteTable,
  requestPath,
  toApiGatewayEvent,
} from "./apigw";
import { isAddressInUse, PortInUseError } from "./errors";
import { createLambdaContext } from "./lambda-context";

// biome-ignore lint/complexity/noBannedTypes: handlers are typed per route; the gateway only calls them.
export type AnyHandler = Function;

export interface HttpRoute extends RouteSpec {
  /** The Lambda function's name, as in serverless.yml. */
  function: string;
  load: () => Promise<{ handler: AnyHandler }>;
}

/**
 * A route the local server answers itself, outside the API Gateway surface. `body` is the raw
 * request body (empty for GET).
 */
export type LocalEndpoint = (
  req: IncomingMessage,
  url: URL,
  body: string,
) => Promise<{ status: number; body: unknown } | undefined>;

export interface GatewayOptions {
  routes: readonly HttpRoute[];
  clock: Clock;
  port?: number;
  host?: string;
  log?: Log;
  /**
   * Served before the routes, only to loopback callers that name a loopback host (e.g.
   * `/_local/...`).
   */
  local?: LocalEndpoint;
  /**
   * Runs a route's handler (the dev stack's Lambda runtime: timeouts, freeze). Without it
   * the handler is called directly with a fresh context.
   */
  invoke?: (functionName: string, handler: AnyHandler, event: unknown) => Promise<unknown>;
  /** Told of every invocation, for the live log and tests. */
  onInvoke?: (info: { routeKey: string; statusCode: number; ms: number }) => void;
}

export interface Gateway {
  url: string;
  port: number;
  /** Requests to the handlers being served right now (local control requests not counted). */
  inFlight(): number;
  close(): Promise<void>;
}

/** API Gateway's payload limit. */
const MAX_BODY_BYTES = 10 * 1024 * 1024;

const readBody = (req: IncomingMessage): Promise<Buffer | "too_large"> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on("end", () => resolve(size > MAX_BODY_BYTES ? "too_large" : Buffer.concat(chunks)));
    req.on("error", reject);
  });

const isLoopback = (ip: string | undefined): boolean =>
  ip === "127.0.0.1" || ip === "::1" || ip === "::ffff:127.0.0.1";

/**
 * True when a request names this machine by a loopback name: Host `127.0.0.1`, `localhost` or
 * `[::1]`, with or without a port. A page of another site that rebinds its own name to 127.0.0.1
 * (DNS rebinding) reaches the loopback socket, but its requests still carry its own name as
 * Host, so only this check keeps the control surface's secrets from it.
 */
export const isLoopbackHost = (host: string | undefined): boolean =>
  host !== undefined && /^(?:127\.0\.0\.1|localhost|\[::1\])(?::\d{1,5})?$/i.test(host);

const sendJson = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, {
    "content-type": "application/json",
    "x-content-type-options": "nosniff",
  });
  res.end(JSON.stringify(body));
};

/** Serves Lambda handlers over HTTP as an API Gateway HTTP API (payload format 2.0) does. */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const log = options.log ?? silentLog;
  const table = new RouteTable(options.routes);
  const loaded = new Map<string, Promise<{ handler: AnyHandler }>>();
  let inFlight = 0;

  const load = (route: HttpRoute) => {
    let module = loaded.get(route.function);
    if (!module) {
      module = route.load();
      loaded.set(route.function, module);
    }
    return module;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = options.clock.now();
    const method = (req.method ?? "GET").toUpperCase();
    const rawUrl = req.url ?? "/";
    const url = new URL(rawUrl, "http://localhost");
    if (url.pathname.startsWith("/_local/")) {
      if (!isLoopback(req.socket.remoteAddress))
        return sendJson(res, 403, { message: "Forbidden" });
      if (!isLoopbackHost(req.headers.host)) {
        return sendJson(res, 403, {
          error: "host_not_loopback",
          message:
            "the local control surface answers only requests addressed to 127.0.0.1, localhost or [::1] (with any port); this one named another host, as a page on another site reaching it through DNS rebinding would",
        });
      }
      const body = method === "GET" || method === "HEAD" ? Buffer.alloc(0) : await readBody(req);
      if (body === "too_large") return sendJson(res, 413, { message: "Request Entity Too Large" });
      const answer = await options.local?.(req, url, body.toString("utf8"));
      if (answer) return sendJson(res, answer.status, answer.body);
      return sendJson(res, 404, { message: "Not Found" });
    }
    const match = table.match(method, requestPath(rawUrl));
    if (match === undefined || match === "method") {
      // HTTP APIs answer 404 for any route key they do not know, whatever the method.
      return sendJson(res, 404, { message: "Not Found" });
    }
    const body = await readBody(req);
    if (body === "too_large") return sendJson(res, 413, { message: "Request Entity Too Large" });
    const routeKey = `${match.route.method.toUpperCase()} ${match.route.path}`;
    const host = req.headers.host ?? "127.0.0.1";
    const event = toApiGatewayEvent(
      { method, url: rawUrl, headers: req.headers, body, sourceIp: req.socket.remoteAddress ?? "" },
      {
        routeKey,
        pathParameters: match.pathParameters,
        now: started,
        apiId: "local",
        domainName: host.split(":")[0] ?? host,
      },
    );
    const functionName = match.route.function;
    let response: ReturnType<typeof fromHandlerResult>;
    try {
      const { handler } = await load(match.route);
      const result = options.invoke
        ? await options.invoke(functionName, handler, event)
        : await handler(event, createLambdaContext({ functionName, clock: options.clock }));
      response = fromHandlerResult(result);
    } catch (error: unknown) {
      // API Gateway hides a failed invocation behind a generic 500; the detail goes to the log.
      log.error("handler failed", {
        function: match.route.function,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
      response = fromHandlerResult({
        statusCode: 500,
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: "Internal Server Error" }),
      });
    }
    const headers: Record<string, string | string[]> = { ...response.headers };
    if (response.cookies.length > 0) headers["set-cookie"] = response.cookies;
    res.writeHead(response.statusCode, headers);
    res.end(response.body);
    options.onInvoke?.({
      routeKey,
      statusCode: response.statusCode,
      ms: options.clock.now() - started,
    });
  };

  const server: Server = createServer((req, res) => {
    // A control request (e.g. "wait until quiet") must not count as work in flight, or it
    // would wait for itself.
    const counted = !(req.url ?? "").startsWith("/_local/");
    if (counted) inFlight++;
    handle(req, res)
      .catch((error: unknown) => {
        log.error("local gateway failed", {
          error: error instanceof Error ? error.message : String(error),
        });
        if (!res.headersSent) sendJson(res, 500, { message: "Internal Server Error" });
        else res.end();
      })
      .finally(() => {
        if (counted) inFlight--;
      });
  });

  const port = options.port ?? 0;
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: unknown) =>
      reject(
        isAddressInUse(error) ? new PortInUseError(port, "handlers", { cause: error }) : error,
      ),
    );
    server.listen(port, options.host ?? "127.0.0.1", () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}`,
    port: address.port,
    inFlight: () => inFlight,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
