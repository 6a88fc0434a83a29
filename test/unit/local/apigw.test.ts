import { describe, expect, it } from "vitest";
import {
  formatRequestTime,
  fromHandlerResult,
  isTextContentType,
  RouteTable,
  toApiGatewayEvent,
} from "#devstack/apigw";

const routes = [
  { method: "GET", path: "/admin/users/{team}/{user}/ooo" },
  { method: "POST", path: "/admin/users/{team}/{user}/ooo" },
  { method: "DELETE", path: "/admin/users/{team}/{user}/ooo/{id}" },
  { method: "POST", path: "/hooks/generic/{sourceId}" },
  { method: "POST", path: "/hooks/google" },
  { method: "GET", path: "/files/{path+}" },
  { method: "GET", path: "/files/readme" },
];

describe("RouteTable", () => {
  it("extracts decoded path parameters from a templated route", () => {
    // Prepare
    const table = new RouteTable(routes);
    // Act
    const match = table.match("DELETE", "/admin/users/T0DEMO/U001/ooo/a%20b");
    // Assess
    expect(match).toEqual({
      route: routes[2],
      pathParameters: { team: "T0DEMO", user: "U001", id: "a b" },
    });
  });

  it("prefers a literal route over a greedy one and gives the greedy one the rest of the path", () => {
    // Prepare
    const table = new RouteTable(routes);
    // Act
    const literal = table.match("GET", "/files/readme");
    const greedy = table.match("GET", "/files/a/b/c");
    // Assess
    expect(literal).toMatchObject({ route: routes[6], pathParameters: {} });
    expect(greedy).toMatchObject({ route: routes[5], pathParameters: { path: "a/b/c" } });
  });

  it("tells a known path with the wrong method apart from an unknown path", () => {
    // Prepare
    const table = new RouteTable(routes);
    // Act / Assess
    expect(table.match("GET", "/hooks/google")).toBe("method");
    expect(table.match("POST", "/hooks/nowhere")).toBeUndefined();
    expect(table.match("POST", "/hooks/generic")).toBeUndefined();
    expect(table.match("POST", "/hooks/generic/a/b")).toBeUndefined();
  });
});

describe("toApiGatewayEvent", () => {
  const now = Date.UTC(2025, 2, 10, 11, 0, 5);

  it("builds a payload-format 2.0 event with lower-cased headers, query, cookies and route key", () => {
    // Prepare
    const req = {
      method: "post",
      url: "/hooks/generic/src-1?a=1&b=x%20y&a=2",
      headers: {
        "Content-Type": "application/json",
        "X-Svc-Signature": "v0=abc",
        "user-agent": "curl/8",
        cookie: "k=v; z=1",
      },
      body: Buffer.from('{"hello":"world"}'),
      sourceIp: "127.0.0.1",
    };
    // Act
    const event = toApiGatewayEvent(req, {
      routeKey: "POST /hooks/generic/{sourceId}",
      pathParameters: { sourceId: "src-1" },
      now,
      apiId: "local",
      domainName: "127.0.0.1",
    });
    // Assess
    expect(event).toMatchObject({
      version: "2.0",
      routeKey: "POST /hooks/generic/{sourceId}",
      rawPath: "/hooks/generic/src-1",
      rawQueryString: "a=1&b=x%20y&a=2",
      headers: { "content-type": "application/json", "x-svc-signature": "v0=abc" },
      cookies: ["k=v", "z=1"],
      queryStringParameters: { a: "1,2", b: "x y" },
      pathParameters: { sourceId: "src-1" },
      body: '{"hello":"world"}',
      isBase64Encoded: false,
      requestContext: {
        http: {
          method: "POST",
          path: "/hooks/generic/src-1",
          sourceIp: "127.0.0.1",
          userAgent: "curl/8",
        },
        routeKey: "POST /hooks/generic/{sourceId}",
        stage: "$default",
        time: "10/Mar/2025:11:00:05 +0000",
        timeEpoch: now,
        accountId: "000000000000",
        apiId: "local",
        domainName: "127.0.0.1",
      },
    });
    expect(event.headers.cookie).toBeUndefined();
    expect(event.requestContext.requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("base64-encodes a binary body and omits body and query when there are none", () => {
    // Prepare
    const binary = Buffer.from([0, 255, 1, 2]);
    // Act
    const withBinary = toApiGatewayEvent(
      {
        method: "POST",
        url: "/x",
        headers: { "content-type": "application/octet-stream" },
        body: binary,
        sourceIp: "::1",
      },
      { routeKey: "POST /x", pathParameters: {}, now, apiId: "local", domainName: "localhost" },
    );
    const empty = toApiGatewayEvent(
      { method: "GET", url: "/health", headers: {}, body: Buffer.alloc(0), sourceIp: "::1" },
      { routeKey: "GET /health", pathParameters: {}, now, apiId: "local", domainName: "localhost" },
    );
    // Assess
    expect(withBinary.isBase64Encoded).toBe(true);
    expect(Buffer.from(withBinary.body ?? "", "base64")).toEqual(binary);
    expect(empty.body).toBeUndefined();
    expect(empty.queryStringParameters).toBeUndefined();
    expect(empty.pathParameters).toBeUndefined();
    expect(empty.isBase64Encoded).toBe(false);
  });

  it("treats JSON, form and text bodies as text", () => {
    expect(isTextContentType("application/json; charset=utf-8")).toBe(true);
    expect(isTextContentType("application/x-www-form-urlencoded")).toBe(true);
    expect(isTextContentType("text/calendar")).toBe(true);
    expect(isTextContentType("image/png")).toBe(false);
  });

  it("formats the request time as API Gateway does", () => {
    expect(formatRequestTime(Date.UTC(2020, 2, 12, 19, 3, 58))).toBe("12/Mar/2020:19:03:58 +0000");
  });
});

describe("fromHandlerResult", () => {
  it("uses a structured result's status, headers, cookies and base64 body", () => {
    // Act
    const response = fromHandlerResult({
      statusCode: 201,
      headers: { "Content-Type": "text/plain", "X-N": 3 },
      cookies: ["a=b"],
      body: Buffer.from("hi").toString("base64"),
      isBase64Encoded: true,
    });
    // Assess
    expect(response).toEqual({
      statusCode: 201,
      headers: { "content-type": "text/plain", "x-n": "3" },
      cookies: ["a=b"],
      body: Buffer.from("hi"),
    });
  });

  it("turns a plain object or string result into a 200 JSON response", () => {
    // Act
    const fromObject = fromHandlerResult({ ok: true });
    const fromString = fromHandlerResult("challenge-token");
    // Assess
    expect(fromObject.statusCode).toBe(200);
    expect(fromObject.headers["content-type"]).toBe("application/json");
    expect(fromObject.body.toString()).toBe('{"ok":true}');
    expect(fromString.body.toString()).toBe("challenge-token");
  });
});
