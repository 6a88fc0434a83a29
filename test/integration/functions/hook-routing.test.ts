import { createHmac } from "node:crypto";
import { request } from "node:http";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Gateway, startGateway } from "#devstack/http-gateway";
import { localLambdas } from "#devstack/lambdas";
import { LambdaRuntime } from "#devstack/runtime";
import { createHandler as createCalendarHooks, HOOK_ROUTES } from "#functions/http/calendar";
import { routes } from "#functions/routes";
import { eventFixture, lambdaContext, type Stack, startStack } from "./harness";

const ctx = lambdaContext("statuspilot-test-calendarHooks");
const call = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> =>
  (await calendarHooks(event, ctx)) as APIGatewayProxyStructuredResultV2;
const bodyOf = (res: { body?: string | undefined }) => JSON.parse(res.body ?? "{}");

const ALICE = { team: "T0DEMO", user: "U001" };
/** The channel's token under the harness's signing secret, as the README derives it. */
const GOOGLE = {
  channelId: "chan-route-google",
  token: createHmac("sha256", "demo-signing-secret")
    .update("channel-token:chan-route-google")
    .digest("base64url"),
};

/**
 * The event API Gateway sends for `POST /hooks/generic/<encoded id>`: it matches the generic
 * route (an encoded `/` stays inside its parameter) and decodes both the parameter and rawPath.
 */
function genericEvent(
  channelId: string,
  extra: Partial<APIGatewayProxyEventV2> = {},
): APIGatewayProxyEventV2 {
  const fixture = eventFixture("hooks-generic.json");
  return {
    ...fixture,
    rawPath: `/hooks/generic/${channelId}`,
    rawQueryString: "",
    pathParameters: { sourceId: channelId },
    ...extra,
  };
}

/** Sends one request with `path` exactly as given (fetch would normalise it first). */
function rawPost(base: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}/`, { method: "POST", path }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end("{}");
  });
}

let stack: Stack;
const calendarHooks = createCalendarHooks(() => stack.app);
let gateway: Gateway;

beforeAll(async () => {
  stack = await startStack();
  const pilot = stack.app.pilot;
  await pilot?.upsertUser({
    key: ALICE,
    tz: "Europe/Berlin",
    token: "xoxp-demo-U001",
    sources: [{ id: "office", url: "https://calendar.example/office.ics", kind: "ics" }],
    mode: "auto",
  });
  await pilot?.putChannel(GOOGLE.channelId, {
    key: ALICE,
    sourceId: "office",
    secret: GOOGLE.token,
    kind: "google",
  });
  // The real routes, each handler made by its factory over this stack's App.
  const lambdas = localLambdas({
    source: () => stack.app,
    runtime: new LambdaRuntime({ clock: stack.clock }),
  });
  gateway = await startGateway({ routes: lambdas.routes, clock: stack.clock, port: 0 });
});
afterAll(async () => {
  await gateway?.close();
  await stack?.close();
});

describe("calendar hooks dispatch on the matched route, not on the path", () => {
  it("answers a generic hook whose id ends in /hooks/graph as the generic hook, not with the Graph echo", async () => {
    // Prepare: POST /hooks/generic/x%2Fhooks%2Fgraph?validationToken=…
    const event = genericEvent("x/hooks/graph", {
      rawQueryString: "validationToken=echo-me",
      queryStringParameters: { validationToken: "echo-me" },
    });
    // Act
    const res = await call(event);
    // Assess
    // The generic hook's own refusal: the fixture's signature is for another channel.
    expect(res.statusCode).toBe(401);
    expect(bodyOf(res)).toMatchObject({ error: "bad_signature" });
    expect(res.body).not.toBe("echo-me");
  });

  it("does not let a generic hook whose id ends in /hooks/google push through a Google channel", async () => {
    // Prepare: a genuine Google channel's headers, on the generic route
    const queued = stack.syncs.sent.length;
    const event = genericEvent("x/hooks/google", {
      headers: {
        "x-goog-channel-id": GOOGLE.channelId,
        "x-goog-channel-token": GOOGLE.token,
        "x-goog-resource-state": "exists",
      },
    });
    // Act
    const res = await call(event);
    // Assess
    expect(res.statusCode).toBe(401);
    expect(stack.syncs.sent.length).toBe(queued);
  });

  it("still serves the Google hook on its own route", async () => {
    // Prepare
    const fixture = eventFixture("hooks-google-exists.json");
    const event = {
      ...fixture,
      headers: {
        ...fixture.headers,
        "x-goog-channel-id": GOOGLE.channelId,
        "x-goog-channel-token": GOOGLE.token,
      },
    };
    // Act
    const res = await call(event);
    // Assess
    expect(res.statusCode).toBe(200);
  });

  it("answers an event without a calendar route key with 404", async () => {
    // Prepare: the Graph path and query, but no route key saying so
    const fixture = eventFixture("hooks-graph-validation.json");
    const { routeKey: _dropped, ...event } = fixture;
    // Act
    const res = await call(event as APIGatewayProxyEventV2);
    // Assess
    expect(res.statusCode).toBe(404);
  });

  it("knows a hook for exactly the calendar routes routes.ts declares", () => {
    const declared = routes
      .filter((r) => r.function === "calendarHooks")
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    expect(HOOK_ROUTES.map((r) => `${r.method} ${r.path}`).sort()).toEqual(declared);
  });
});

describe("the local API Gateway with the real routes", () => {
  it("keeps %2F inside the generic hook's id, so the Graph echo is not reached", async () => {
    // Act
    const res = await fetch(
      `${gateway.url}/hooks/generic/x%2Fhooks%2Fgraph?validationToken=echo-me`,
      { method: "POST", headers: { "content-type": "application/json" }, body: "{}" },
    );
    // Assess
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ error: "missing_signature" });
  });

  it("matches the path as sent: a raw backslash is no separator and %2e%2e no parent", async () => {
    // Act
    const backslash = await rawPost(
      gateway.url,
      "/hooks/generic/x\\..\\..\\graph?validationToken=e",
    );
    const dots = await rawPost(gateway.url, "/hooks/generic/%2e%2e/graph?validationToken=e");
    // Assess: the first reaches the generic hook, the second no route at all
    expect(backslash.status).toBe(401);
    expect(JSON.parse(backslash.body)).toMatchObject({ error: "missing_signature" });
    expect(dots.status).toBe(404);
    expect(JSON.parse(dots.body)).toEqual({ message: "Not Found" });
  });
});
