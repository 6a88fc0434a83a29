import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Route } from "#functions/routes";
import { type AnyHandler, apiEvent } from "./support/requests";
import { ALICE, FRONT_DOOR, type FuzzStack, startFuzzStack } from "./support/stack";
import { fuzz, sendAndExpectRefusal } from "./support/verdict";
import { type Credentials, credentialsOf, isToInstall, webNoOp, webRoutes } from "./support/web";

/**
 * The calendar connect routes (`GET /connect/<provider>` and its callback) under fuzzing, on a
 * deployment where the provider is not configured: without a current session, any request is
 * sent to /install; with one, any request gets the "not available" page. Never a 5xx, nothing
 * written. (The configured flow, states bound to sessions included, runs over HTTP in
 * test/e2e/google-connect.test.ts.)
 */
let stack: FuzzStack;
let handler: AnyHandler;
let alice: Credentials;
const connectRoutes = webRoutes.filter((r) => r.path.startsWith("/connect/"));

const query = fc.option(
  fc.dictionary(
    fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("state", "code", "error", "scope")),
    fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom("access_denied", "__proto__")),
    { maxKeys: 4 },
  ),
  { nil: undefined },
);

const send = (route: Route, req: { cookies?: string[]; query?: Record<string, string> }) =>
  sendAndExpectRefusal(
    stack,
    handler,
    apiEvent({
      method: route.method,
      route: route.path,
      rawPath: route.path,
      headers: { host: new URL(FRONT_DOOR.publicBaseUrl).host },
      ...(req.query ? { query: req.query } : {}),
      ...(req.cookies ? { cookies: req.cookies } : {}),
    }),
    (res, body) =>
      webNoOp(route)(res, body) ??
      (res.statusCode === 404 ? "provider not configured: nothing to do" : undefined),
    "json-or-page",
  );

describe("the connect routes under fuzzing", () => {
  beforeAll(async () => {
    stack = await startFuzzStack();
    handler = (await webRoutes[0]?.load())?.createHandler(() => stack.app) as AnyHandler;
    alice = await credentialsOf(stack.app, ALICE);
  });
  afterAll(async () => stack?.close());

  it("covers the connect routes of Google (and of any other provider routed)", () => {
    expect(connectRoutes.map((r) => `${r.method} ${r.path}`)).toEqual(
      expect.arrayContaining([
        "GET /connect/google",
        "GET /connect/google/callback",
        "GET /connect/microsoft",
        "GET /connect/microsoft/callback",
      ]),
    );
  });

  it("sends a request without a session to /install, whatever it asks", async () => {
    await fuzz(
      fc.record({
        route: fc.constantFrom(...connectRoutes),
        cookies: fc.option(fc.array(fc.string({ maxLength: 80 }), { maxLength: 3 }), {
          nil: undefined,
        }),
        query,
      }),
      60,
      async ({ route, cookies, query }) => {
        const res = await send(route, {
          ...(cookies ? { cookies } : {}),
          ...(query ? { query } : {}),
        });
        expect(isToInstall(res)).toBe(true);
      },
    );
  });

  it("answers a signed-in person 404 when the provider is not configured, whatever they send", async () => {
    await fuzz(
      fc.record({ route: fc.constantFrom(...connectRoutes), query }),
      60,
      async ({ route, query }) => {
        const res = await send(route, { cookies: [alice.cookie], ...(query ? { query } : {}) });
        expect(res.statusCode).toBe(404);
      },
    );
  });
});
