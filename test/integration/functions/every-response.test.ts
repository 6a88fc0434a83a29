import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FunctionModule, routes } from "#functions/routes";
import { eventFixture, lambdaContext, type Stack, startStack } from "./harness";

let stack: Stack;
const ctx = lambdaContext("statuspilot-test-everyResponse");

/** Each HTTP function once, with one of its routes. */
const functions = [...new Map(routes.map((r) => [r.function, r])).values()];

/** A request for `route` as API Gateway sends it, without any credential. */
function requestFor(method: string, path: string): APIGatewayProxyEventV2 {
  const fixture = eventFixture("admin-get-user.json");
  const rawPath = path.replace(/\{[^}]+\}/g, "x");
  return {
    ...fixture,
    routeKey: `${method} ${path}`,
    rawPath,
    rawQueryString: "",
    headers: { host: "abc123.execute-api.eu-west-1.amazonaws.com" },
    requestContext: {
      ...fixture.requestContext,
      routeKey: `${method} ${path}`,
      http: { ...fixture.requestContext.http, method, path: rawPath },
    },
  } as APIGatewayProxyEventV2;
}

const call = async (module: FunctionModule, source: () => unknown, event: unknown) =>
  (await (module.createHandler(source as never) as (e: unknown, c: unknown) => Promise<unknown>)(
    event,
    ctx,
  )) as APIGatewayProxyStructuredResultV2;

describe("every HTTP answer says nosniff", () => {
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.close());

  it.each(functions)("answers a request on $method $path ($function) with nosniff", async (r) => {
    // Act
    const res = await call(await r.load(), () => stack.app, requestFor(r.method, r.path));
    // Assess: whatever it answered (a page, a refusal, "not set up"), the header is on it
    expect(res.statusCode).toBeGreaterThanOrEqual(200);
    expect(res.headers?.["x-content-type-options"]).toBe("nosniff");
  });

  it.each(functions)(
    "refuses what is no HTTP event with a 4xx and nosniff ($function)",
    async (r) => {
      // Act
      const res = await call(await r.load(), () => stack.app, { not: "an HTTP API event" });
      // Assess (the health check reads no event, and answers it)
      if (r.function === "health") expect(res.statusCode).toBe(200);
      else expect([400, 401, 404]).toContain(res.statusCode);
      expect(res.headers?.["x-content-type-options"]).toBe("nosniff");
    },
  );

  it.each(functions.filter((r) => r.function !== "health"))(
    "answers 500 with nosniff when its app cannot be built ($function)",
    async (r) => {
      // Prepare: the composition fails, so only the chain's last net can answer
      const broken = () => {
        throw new Error("composition failed");
      };
      // Act
      const res = await call(await r.load(), broken, requestFor(r.method, r.path));
      // Assess
      expect(res.statusCode).toBe(500);
      expect(res.headers?.["x-content-type-options"]).toBe("nosniff");
    },
  );
});
