import { type IncomingHttpHeaders, request } from "node:http";
import type { APIGatewayProxyEventV2, Context } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PortInUseError } from "#devstack/errors";
import { type Gateway, type HttpRoute, startGateway } from "#devstack/http-gateway";
import { ManualClock } from "#lib/core/clock";

const clock = new ManualClock(Date.parse("2025-03-10T11:00:00Z"));
const seen: Array<{ event: APIGatewayProxyEventV2; context: Context; remaining: number }> = [];

const routes: HttpRoute[] = [
  {
    method: "POST",
    path: "/hooks/generic/{sourceId}",
    function: "calendarHooks",
    load: async () => ({
      handler: async (event: APIGatewayProxyEventV2, context: Context) => {
        seen.push({ event, context, remaining: context.getRemainingTimeInMillis() });
        return {
          statusCode: 202,
          headers: { "X-Seen": "yes" },
          body: JSON.stringify({ ok: true }),
        };
      },
    }),
  },
  {
    method: "GET",
    path: "/health",
    function: "health",
    load: async () => ({ handler: async () => ({ status: "ok" }) }),
  },
  {
    method: "GET",
    path: "/boom",
    function: "boom",
    load: async () => ({
      handler: async () => {
        throw new Error("secret detail that must not leak");
      },
    }),
  },
];

/** GETs `path` on the gateway's loopback socket with `host` as the Host header (fetch sets its own). */
function getWithHost(
  port: number,
  path: string,
  host: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

let gateway: Gateway;
beforeAll(async () => {
  gateway = await startGateway({
    routes,
    clock,
    port: 0,
    local: async (_req, url, body) => {
      if (url.pathname === "/_local/ping") return { status: 200, body: { pong: true } };
      // Reports what a control request sees: its body, and the work counted as in flight.
      if (url.pathname === "/_local/echo")
        return { status: 200, body: { body, inFlight: gateway.inFlight() } };
      return undefined;
    },
  });
});
afterAll(() => gateway.close());

describe("the local HTTP gateway", () => {
  it("hands a control request its body and does not count it as work in flight", async () => {
    // Act: a control request that waited for in-flight work to end would otherwise wait for itself
    const res = await fetch(`${gateway.url}/_local/echo`, { method: "POST", body: '{"to":1}' });
    // Assess
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ body: '{"to":1}', inFlight: 0 });
  });

  it("invokes the route's handler with an API Gateway v2 event and a Lambda context", async () => {
    // Act
    const res = await fetch(`${gateway.url}/hooks/generic/src%2F1?x=1`, {
      method: "POST",
      headers: { "content-type": "application/json", "X-Statuspilot-Signature": "v0=ab" },
      body: '{"a":1}',
    });
    // Assess
    expect(res.status).toBe(202);
    expect(res.headers.get("x-seen")).toBe("yes");
    expect(await res.json()).toEqual({ ok: true });
    const call = seen.at(-1);
    expect(call?.event).toMatchObject({
      version: "2.0",
      routeKey: "POST /hooks/generic/{sourceId}",
      rawPath: "/hooks/generic/src/1",
      rawQueryString: "x=1",
      pathParameters: { sourceId: "src/1" },
      headers: { "x-statuspilot-signature": "v0=ab" },
      body: '{"a":1}',
      isBase64Encoded: false,
      requestContext: { http: { method: "POST", sourceIp: "127.0.0.1" }, stage: "$default" },
    });
    expect(call?.context.functionName).toBe("calendarHooks");
    expect(call?.remaining).toBe(30_000);
  });

  it("serves a plain object result as 200 JSON", async () => {
    // Act
    const res = await fetch(`${gateway.url}/health`);
    // Assess
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual({ status: "ok" });
  });

  it("answers 404 for unknown routes and wrong methods, like an HTTP API", async () => {
    // Act
    const unknown = await fetch(`${gateway.url}/nowhere`);
    const wrongMethod = await fetch(`${gateway.url}/health`, { method: "DELETE" });
    // Assess
    expect(unknown.status).toBe(404);
    expect(wrongMethod.status).toBe(404);
    expect(await unknown.json()).toEqual({ message: "Not Found" });
  });

  it("hides a handler's exception behind a generic 500", async () => {
    // Act
    const res = await fetch(`${gateway.url}/boom`);
    // Assess
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('{"message":"Internal Server Error"}');
  });

  it("answers /_local/ endpoints itself, to loopback callers", async () => {
    // Act
    const res = await fetch(`${gateway.url}/_local/ping`);
    // Assess
    expect(await res.json()).toEqual({ pong: true });
  });

  it.each(["127.0.0.1", "127.0.0.1:8787", "localhost", "LOCALHOST:3000", "[::1]", "[::1]:8787"])(
    "answers a /_local/ request that names the loopback host %s",
    async (host) => {
      // Act
      const res = await getWithHost(gateway.port, "/_local/ping", host);
      // Assess
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toEqual({ pong: true });
    },
  );

  it.each([
    "rebind.attacker.example",
    "rebind.attacker.example:8787",
    "127.0.0.1.attacker.example",
    "localhost.attacker.example",
    "evil.localhost.example:80",
    "127.0.0.2",
    "0.0.0.0:8787",
    "[::1].example",
    "127.0.0.1:8787@evil.example",
  ])(
    "refuses a /_local/ request that names the host %j with 403, as DNS rebinding would",
    async (host) => {
      // Act
      const res = await getWithHost(gateway.port, "/_local/ping", host);
      // Assess: a clear refusal, and none of the endpoint's answer
      expect(res.status).toBe(403);
      expect(res.headers["x-content-type-options"]).toBe("nosniff");
      const body = JSON.parse(res.body);
      expect(body.error).toBe("host_not_loopback");
      expect(body.message).toMatch(/only requests addressed to 127\.0\.0\.1, localhost or \[::1\]/);
      expect(res.body).not.toContain("pong");
    },
  );

  it("serves the API routes whatever their Host, as API Gateway does", async () => {
    // Act
    const res = await getWithHost(gateway.port, "/health", "statuspilot.example");
    // Assess
    expect(res.status).toBe(200);
  });

  it("fails with a one-line message naming the port when it is taken", async () => {
    // Act
    const second = startGateway({ routes, clock, port: gateway.port });
    // Assess
    await expect(second).rejects.toBeInstanceOf(PortInUseError);
    await expect(second).rejects.toThrow(`port ${gateway.port} (handlers) is already in use`);
  });
});
