import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Route } from "#functions/routes";
import { ADMIN_ROUTES, adminHandlers, paramNames } from "./support/admin-routes";
import {
  type AnyHandler,
  apiEvent,
  contentType,
  garbageBody,
  headers,
  noiseHeaders,
  OVERSIZED_ENTRY_ID,
  OVERSIZED_IDS,
  pathValue,
  plainWire,
  unsyncableFeedUrl,
  unsyncableSourceId,
} from "./support/requests";
import { ALICE, CHANNELS, type FuzzStack, NOW_MS, SECRETS, startFuzzStack } from "./support/stack";
import { fuzz, type NoOp, sendAndExpectRefusal } from "./support/verdict";

let handlers: Map<Route, AnyHandler>;
let stack: FuzzStack;

const rawPathOf = (route: Route, params: Record<string, string>): string =>
  route.path.replace(/\{([^}]+)\}/g, (_m, name: string) => params[name] ?? "");

/** An admin request to `route` with the given parameters, key and body. */
function adminEvent(
  route: Route,
  opts: {
    params: Record<string, string>;
    key?: string | undefined;
    method?: string;
    wire?: { body: string | undefined; isBase64Encoded: boolean };
    extra?: Record<string, string | undefined>;
  },
) {
  return apiEvent({
    method: opts.method ?? route.method,
    route: route.path,
    rawPath: rawPathOf(route, opts.params),
    params: opts.params,
    headers: headers(opts.extra ?? {}, { "x-api-key": opts.key }),
    ...(opts.wire?.body !== undefined ? { body: opts.wire.body } : {}),
    isBase64Encoded: opts.wire?.isBase64Encoded ?? false,
  });
}

/** A GET with the right key is a read: a 200 that changes nothing is its documented answer. */
const readNoOp =
  (method: string): NoOp =>
  (res) =>
    method === "GET" && res.statusCode === 200 ? "read-only GET" : undefined;

/** Alice's own paths: team and user are hers, any other parameter (an id) is `other`. */
const aliceParams = (route: Route, other: string): Record<string, string> =>
  Object.fromEntries(
    paramNames(route).map((name) => [
      name,
      name === "team" ? ALICE.team : name === "user" ? ALICE.user : other,
    ]),
  );

/** Random values for exactly the parameters the route declares. */
const paramsFor = (route: Route): fc.Arbitrary<Record<string, string>> =>
  fc.record(Object.fromEntries(paramNames(route).map((name) => [name, pathValue])));

/** A body the route would accept (and act on) from a caller with the right key. */
function validBody(route: Route): string {
  if (route.path.startsWith("/admin/channels/")) {
    return JSON.stringify({ ...ALICE, sourceId: "office", secret: "new-hook-secret" });
  }
  if (route.path === "/admin/users/{team}/{user}") {
    return JSON.stringify({
      tz: "Europe/Paris",
      token: "xoxp-replaced-token",
      sources: [{ id: "office", url: "https://calendar.example/x.ics", kind: "ics" }],
    });
  }
  return JSON.stringify({ start: NOW_MS + 3_600_000, end: NOW_MS + 7_200_000 });
}

/** A key that is anything but the admin key: absent, empty, near misses and noise. */
const wrongKey = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 60 }).filter((k) => k !== SECRETS.adminKey),
  fc.constantFrom(
    "",
    SECRETS.adminKey.toUpperCase(),
    `${SECRETS.adminKey} `,
    ` ${SECRETS.adminKey}`,
    SECRETS.adminKey.slice(1),
    `Bearer ${SECRETS.adminKey}`,
    SECRETS.signing,
  ),
);

describe("admin API under fuzzing", () => {
  beforeAll(async () => {
    stack = await startFuzzStack();
    handlers = await adminHandlers(stack);
  });
  afterAll(async () => stack?.close());

  it("has admin routes to fuzz", () => {
    expect(ADMIN_ROUTES.length).toBeGreaterThanOrEqual(3);
  });

  it("refuses every admin call without the right x-api-key with 401, on every admin route", async () => {
    await fuzz(
      fc.constantFrom(...ADMIN_ROUTES).chain((route) =>
        fc.record({
          route: fc.constant(route),
          key: wrongKey,
          // The key in another header, or the right key under a second, differently cased name.
          decoy: fc.constantFrom<Record<string, string | undefined>>(
            {},
            { authorization: `Bearer ${SECRETS.adminKey}` },
            { "x-api-keys": SECRETS.adminKey },
            { "x-admin-key": SECRETS.adminKey },
          ),
          params: paramsFor(route),
          useAlice: fc.boolean(),
          wire: garbageBody,
          noise: noiseHeaders,
        }),
      ),
      100,
      async ({ route, key, decoy, params, useAlice, wire, noise }) => {
        // Prepare: Alice's real paths with a valid body half the time, so a bypass would show.
        const event = adminEvent(route, {
          params: useAlice ? aliceParams(route, CHANNELS.google) : params,
          key,
          wire: useAlice ? { body: validBody(route), isBase64Encoded: false } : wire,
          // Noise may carry `X-Api-Key` in another case; drop it so the key under test is the one sent.
          extra: {
            ...Object.fromEntries(
              Object.entries(noise).filter(([k]) => k.toLowerCase() !== "x-api-key"),
            ),
            ...decoy,
          },
        });
        // Act
        const res = await sendAndExpectRefusal(stack, handlers.get(route) as AnyHandler, event);
        // Assess
        expect(res.statusCode).toBe(401);
      },
    );
  });

  it("answers malformed bodies and parameters with the right key with 4xx, or a read for GET", async () => {
    const badSchedule = fc.oneof(
      garbageBody,
      fc
        .record(
          {
            start: fc.oneof(
              fc.integer(),
              fc.double(),
              fc.string(),
              fc.constantFrom("2026-01-05", "2026-01-05T00:00:00", NOW_MS - 86_400_000),
            ),
            // Ends never after the start and never in the future: nothing may be scheduled.
            end: fc.oneof(fc.constant(NOW_MS - 1), fc.constant(0), fc.string(), fc.constant(null)),
            text: fc.oneof(fc.string({ maxLength: 120 }), fc.integer()),
            emoji: fc.oneof(
              fc.string({ maxLength: 20 }),
              fc.constantFrom("skier", ":Skier:", "::"),
            ),
            extra: fc.jsonValue({ maxDepth: 2 }),
          },
          { requiredKeys: [] },
        )
        .map((doc) => JSON.stringify(doc))
        .map(plainWire),
    );
    await fuzz(
      fc.constantFrom(...ADMIN_ROUTES).chain((route) =>
        fc.record({
          route: fc.constant(route),
          params: fc.oneof(
            paramsFor(route),
            pathValue.map((other) => aliceParams(route, other)),
            // Parameters missing altogether, as a misconfigured route would deliver them.
            fc.constant({}),
          ),
          wire: badSchedule,
          type: contentType,
        }),
      ),
      100,
      async ({ route, params, wire, type }) => {
        const event = adminEvent(route, {
          params,
          key: SECRETS.adminKey,
          wire,
          extra: { "content-type": type },
        });
        await sendAndExpectRefusal(
          stack,
          handlers.get(route) as AnyHandler,
          event,
          readNoOp(route.method),
        );
      },
    );
  });

  // API Gateway only routes the declared methods, but the handler must not rely on it (the
  // local gateway and any future route on the same function reach it): an undeclared method
  // with a valid body is refused with 405 before the body is read.
  it.each(["PATCH", "PUT", "HEAD"])(
    "refuses %s on the out-of-office collection instead of scheduling",
    async (method) => {
      const route = ADMIN_ROUTES.find((r) => r.method === "POST" && r.path.endsWith("/ooo"));
      expect(route).toBeDefined();
      const body = JSON.stringify({ start: NOW_MS + 3_600_000, end: NOW_MS + 7_200_000 });
      const event = adminEvent(route as Route, {
        params: aliceParams(route as Route, "x"),
        key: SECRETS.adminKey,
        method,
        wire: { body, isBase64Encoded: false },
      });
      await sendAndExpectRefusal(stack, handlers.get(route as Route) as AnyHandler, event);
    },
  );

  // The same for the onboarding routes: DELETE or PATCH on a user must not overwrite it, and a
  // GET on a channel must not rebind it.
  const undeclared = ADMIN_ROUTES.filter((r) => r.function === "adminUsers")
    .flatMap((r) =>
      ["DELETE", "PATCH", "POST", "GET", "PUT"]
        .filter((m) => !ADMIN_ROUTES.some((d) => d.path === r.path && d.method === m))
        .map((method) => ({ method, route: r, label: `${method} ${r.path}` })),
    )
    .filter((c, i, all) => all.findIndex((o) => o.label === c.label) === i);
  it.each(undeclared)(
    "refuses the undeclared $label with a valid body instead of acting on it",
    async ({ method, route }) => {
      const event = adminEvent(route, {
        params: aliceParams(route, CHANNELS.google),
        key: SECRETS.adminKey,
        method,
        wire: { body: validBody(route), isBase64Encoded: false },
      });
      await sendAndExpectRefusal(stack, handlers.get(route) as AnyHandler, event);
    },
  );

  // A {user} (or {team}) longer than DynamoDB's 2048-byte key limit must be refused at the
  // edge (workspace ids are 1-32 upper-case letters or digits), never reach the store.
  it.each(
    ADMIN_ROUTES.filter((r) => r.method !== "GET" && r.path.includes("/ooo")).flatMap((r) =>
      OVERSIZED_IDS.map((id) => ({ route: r, label: `${r.method} ${r.path}`, id })),
    ),
  )("answers $label for an oversized user with 4xx instead of a 500", async ({ route, id }) => {
    const body = JSON.stringify({ start: NOW_MS + 3_600_000, end: NOW_MS + 7_200_000 });
    const event = adminEvent(route, {
      params: { ...aliceParams(route, "x"), user: id },
      key: SECRETS.adminKey,
      wire: { body, isBase64Encoded: false },
    });
    await sendAndExpectRefusal(stack, handlers.get(route) as AnyHandler, event);
  });

  // An {id} longer than DynamoDB's 1024-byte sort key limit must not reach DeleteItem: entry
  // ids are at most 128 characters.
  it("answers DELETE of a 1025-character out-of-office id with 4xx instead of a 500", async () => {
    const route = ADMIN_ROUTES.find((r) => r.method === "DELETE" && r.path.endsWith("/{id}"));
    expect(route).toBeDefined();
    const event = adminEvent(route as Route, {
      params: aliceParams(route as Route, OVERSIZED_ENTRY_ID),
      key: SECRETS.adminKey,
    });
    await sendAndExpectRefusal(stack, handlers.get(route as Route) as AnyHandler, event);
  });

  // A source that can never sync (not http(s), or a `#` or `/` in its id) or that would be
  // fetched inside the account's network must be refused up front: stored, it would fail at
  // every poll and fill the dead-letter queue. The fuzz stack checks addresses as on AWS.
  it("refuses a user whose one bad source can never sync or reaches inside, with 400 and its pointer", async () => {
    const route = ADMIN_ROUTES.find(
      (r) => r.method === "PUT" && r.path === "/admin/users/{team}/{user}",
    );
    expect(route).toBeDefined();
    const good = (i: number) => ({
      id: `cal${i}`,
      url: `https://calendar.example/${i}.ics`,
      kind: "ics",
    });
    await fuzz(
      fc.record({
        count: fc.integer({ min: 1, max: 4 }),
        at: fc.nat(),
        bad: fc.oneof(
          unsyncableFeedUrl.map((url) => ({ field: "url", value: url })),
          unsyncableSourceId.map((id) => ({ field: "id", value: id })),
        ),
      }),
      100,
      async ({ count, at, bad }) => {
        // Prepare: Alice's sources, one of them bad in one field
        const index = at % count;
        const sources = Array.from({ length: count }, (_, i) =>
          i === index ? { ...good(i), [bad.field]: bad.value } : good(i),
        );
        const body = JSON.stringify({ tz: "Europe/Paris", token: "xoxp-replaced-token", sources });
        const event = adminEvent(route as Route, {
          params: aliceParams(route as Route, "x"),
          key: SECRETS.adminKey,
          wire: { body, isBase64Encoded: false },
        });
        // Act
        const res = await sendAndExpectRefusal(
          stack,
          handlers.get(route as Route) as AnyHandler,
          event,
        );
        // Assess
        expect(res.statusCode).toBe(400);
        expect(JSON.parse(res.body ?? "{}").pointer).toBe(`/sources/${index}/${bad.field}`);
      },
    );
  });

  it("wrote log lines while fuzzing, so the no-secret check had something to read", () => {
    expect(stack.logs.lines.length).toBeGreaterThan(0);
  });
});
