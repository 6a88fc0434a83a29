import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Route, routes } from "#functions/routes";
import {
  type AnyHandler,
  apiEvent,
  garbageBody,
  noiseHeaders,
  pathValue,
} from "./support/requests";
import { ALICE, type FuzzStack, SECRETS, startFuzzStack } from "./support/stack";
import { fuzz, leakedSecrets, type NoOp, sendAndExpectRefusal } from "./support/verdict";
import { isMutatingWebRoute, isToInstall, isWebRoute, webNoOp } from "./support/web";

/**
 * The route keys each endpoint-specific fuzz file covers (admin routes are covered by prefix in
 * http-admin.test.ts). A route added to routes.ts without a fuzz test fails the first case.
 */
const FUZZED_ELSEWHERE = new Set([
  "POST /service/events",
  "POST /service/commands/ooo",
  "POST /service/commands/statuspilot",
  "POST /service/interactive",
  "POST /hooks/google",
  "POST /hooks/graph",
  "POST /hooks/generic/{sourceId}",
  // The front door: http-web.test.ts.
  "GET /install",
  "GET /oauth/callback",
  "GET /settings",
  "POST /settings/calendars/add",
  "POST /settings/calendars/remove",
  "POST /settings/rules",
  "POST /settings/pause",
  "POST /settings/resume",
  "POST /settings/ooo/add",
  "POST /settings/ooo/cancel",
  "POST /settings/disconnect",
  "POST /settings/sign-out",
  "POST /settings/sync",
  "POST /settings/messages",
  "GET /settings/open",
  // Connecting calendars: http-connect.test.ts.
  "GET /connect/google",
  "GET /connect/google/callback",
  "GET /connect/microsoft",
  "GET /connect/microsoft/callback",
]);
const routeKey = (r: Route) => `${r.method} ${r.path}`;
const isHealth = (r: Route) => r.path === "/health";

let stack: FuzzStack;
const handlers = new Map<Route, AnyHandler>();

/**
 * Health answers 200 to anything: it never builds the app, so it cannot change state. A web
 * route refuses a request without a session by a redirect to /install (webNoOp).
 */
const noOpOf =
  (route: Route): NoOp =>
  (res, body) => {
    if (isWebRoute(route)) return webNoOp(route)(res, body);
    return isHealth(route) && res.statusCode === 200 ? "health probe" : undefined;
  };

/** Objects that are not API Gateway v2 events, or are with the wrong types inside. */
const notAnEvent = fc.oneof(
  fc.constantFrom<unknown>(null, undefined, 0, "", "GET /", [], {}, { body: {} }),
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    {
      rawPath: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
      headers: fc.oneof(
        fc.dictionary(
          fc.string(),
          fc.oneof(fc.integer(), fc.constant(null), fc.array(fc.string())),
        ),
        fc.string(),
        fc.constant(null),
      ),
      body: fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.integer()),
      isBase64Encoded: fc.oneof(fc.string(), fc.integer()),
      pathParameters: fc.oneof(fc.dictionary(fc.string(), fc.integer()), fc.string()),
      queryStringParameters: fc.oneof(fc.dictionary(fc.string(), fc.boolean()), fc.integer()),
      requestContext: fc.oneof(
        fc.constant(null),
        fc.string(),
        fc.record({ http: fc.oneof(fc.constant(null), fc.record({ method: fc.integer() })) }),
      ),
    },
    { requiredKeys: [] },
  ),
);

describe("every HTTP route under fuzzing", () => {
  beforeAll(async () => {
    stack = await startFuzzStack();
    for (const route of routes)
      handlers.set(
        route,
        (await route.load()).createHandler(() => stack.app),
      );
  });
  afterAll(async () => stack?.close());

  it("sees a secret the app's logger writes, so the no-secret check can fail", async () => {
    // Prepare
    const app = stack.app;
    const mark = stack.logs.lines.length;
    // Act: a key the redactor does not know, so the value goes out as it is.
    app.log.info("canary", { note: SECRETS.userToken });
    // Assess
    const lines = stack.logs.since(mark);
    expect(lines.some((line) => leakedSecrets(line, "").includes(SECRETS.userToken))).toBe(true);
  });

  it("sees a changed item and a queued message, so the no-state-change check can fail", async () => {
    // Prepare
    const app = stack.app;
    const before = await stack.observe();
    // Act
    await app.pilot?.putChannel("canary-channel", { key: ALICE, sourceId: "office" });
    await app.syncQueue.send({ ...ALICE, sourceId: "office", reason: "push" });
    // Assess
    const after = await stack.observe();
    expect(after.items).not.toEqual(before.items);
    expect(after.syncs).toBe(before.syncs + 1);
  });

  it("has a fuzz test for every route in routes.ts", () => {
    const unfuzzed = routes
      .filter((r) => !isHealth(r) && !r.path.startsWith("/admin/"))
      .map(routeKey)
      .filter((key) => !FUZZED_ELSEWHERE.has(key));
    expect(unfuzzed).toEqual([]);
  });

  it("answers input that is not an HTTP API event with 400 on every route, never a 5xx", async () => {
    await fuzz(
      fc.record({ route: fc.constantFrom(...routes), event: notAnEvent }),
      100,
      async ({ route, event }) => {
        const res = await sendAndExpectRefusal(
          stack,
          handlers.get(route) as AnyHandler,
          event,
          noOpOf(route),
        );
        if (!isHealth(route)) expect(res.statusCode).toBeGreaterThanOrEqual(400);
      },
    );
  });

  it("refuses any method, path and unsigned body on every route (4xx, or /install for the front door)", async () => {
    await fuzz(
      fc.record({
        route: fc.constantFrom(...routes),
        method: fc.oneof(
          fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS", "get", ""),
          fc.string({ maxLength: 10 }),
        ),
        rawPath: fc.oneof(
          fc.constant(undefined),
          pathValue.map((p) => `/${p}`),
        ),
        params: fc.option(
          fc.dictionary(fc.constantFrom("team", "user", "id", "sourceId"), pathValue),
          {
            nil: undefined,
          },
        ),
        query: fc.option(
          fc.dictionary(fc.string({ maxLength: 10 }), fc.string({ maxLength: 20 })),
          {
            nil: undefined,
          },
        ),
        wire: garbageBody,
        noise: noiseHeaders,
      }),
      100,
      async ({ route, method, rawPath, params, query, wire, noise }) => {
        // No valid signature, channel token, clientState or admin key is ever sent here.
        const { validationToken: _echoed, ...safeQuery } = query ?? {};
        const event = apiEvent({
          method,
          route: route.path,
          rawPath: rawPath ?? route.path,
          headers: noise,
          ...(query ? { query: safeQuery } : {}),
          ...(params ? { params } : {}),
          ...(wire.body !== undefined ? { body: wire.body } : {}),
          isBase64Encoded: wire.isBase64Encoded,
        });
        const res = await sendAndExpectRefusal(
          stack,
          handlers.get(route) as AnyHandler,
          event,
          noOpOf(route),
          isWebRoute(route) ? "json-or-page" : "json",
        );
        // A refusal: a 4xx, or for the front door a redirect to /install (never a 2xx there
        // for a form: webNoOp accepts no other answer below 400 on a mutating route).
        if (isMutatingWebRoute(route)) {
          expect(res.statusCode).toBeGreaterThanOrEqual(300);
          if ((res.statusCode ?? 0) < 400) expect(isToInstall(res)).toBe(true);
        } else if (!isHealth(route) && !isWebRoute(route)) {
          expect(res.statusCode).toBeGreaterThanOrEqual(400);
        }
      },
    );
  });
});
