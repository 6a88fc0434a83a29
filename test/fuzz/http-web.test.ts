import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Route } from "#functions/routes";
import { loadConfig } from "#lib/app/config";
import { missingFrontDoorSettings } from "#lib/web/front-door";
import { type AnyHandler, apiEvent, invoke } from "./support/requests";
import { ALICE, BOB, FRONT_DOOR, type FuzzStack, SECRETS, startFuzzStack } from "./support/stack";
import { contentTypeOf, fuzz, sendAndExpectRefusal } from "./support/verdict";
import {
  type Credentials,
  credentialsOf,
  installStates,
  isMutatingWebRoute,
  isToInstall,
  locationOf,
  SESSION_COOKIE_NAME,
  webNoOp,
  webRoutes,
} from "./support/web";

/**
 * The front door under fuzzing: every web route, with arbitrary queries, cookies, form bodies
 * and CSRF tokens. Never a 5xx, nothing written, and the refusal the rule names: no current
 * session → a redirect to /install; a session with a CSRF token that is not its own → 403; an
 * install state that is bad, expired or spent → a 400 page; `error=access_denied` with a good
 * state → the "nothing installed" page.
 */

let stack: FuzzStack;
let handler: AnyHandler;
let alice: Credentials;
let bob: Credentials;
let states: Awaited<ReturnType<typeof installStates>>;

const settingsForms = webRoutes.filter(isMutatingWebRoute);
const settingsPage = webRoutes.find((r) => r.method === "GET" && r.path === "/settings") as Route;
const installRoute = webRoutes.find((r) => r.path === "/install") as Route;
const callbackRoute = webRoutes.find((r) => r.path === "/oauth/callback") as Route;

/** `text` with its `n`th character from the end changed (a signature's, for a cookie or state). */
const flipFromEnd = (text: string, n: number): string => {
  const at = text.length - n;
  return text.slice(0, at) + (text[at] === "A" ? "B" : "A") + text.slice(at + 1);
};

/** Alice's cookie with one character of its signature changed, or cut short. */
const tamperedCookies = (cookie: string): fc.Arbitrary<string> =>
  fc.oneof(
    fc.integer({ min: 1, max: 20 }).map((n) => flipFromEnd(cookie, n)),
    fc
      .integer({ min: SESSION_COOKIE_NAME.length + 1, max: cookie.length - 1 })
      .map((n) => cookie.slice(0, n)),
    // The right value under another name (the insecure one, a prefix the browser never sets).
    fc
      .constantFrom("statuspilot_session", "__Secure-statuspilot_session", "session")
      .map((name) => `${name}=${cookie.slice(cookie.indexOf("=") + 1)}`),
  );

/** Cookies that carry no current session. */
const noSession = (): fc.Arbitrary<string[] | undefined> =>
  fc.oneof(
    fc.constant(undefined),
    fc.constant([] as string[]),
    fc.array(fc.string({ maxLength: 60 }), { maxLength: 3 }),
    fc.string({ maxLength: 200 }).map((v) => [`${SESSION_COOKIE_NAME}=${v}`]),
    fc
      .base64String({ maxLength: 120 })
      .map((v) => [`${SESSION_COOKIE_NAME}=1.${v}.${v.slice(0, 43)}`]),
    tamperedCookies(alice.cookie).map((c) => [c]),
  );

/** Query strings, from garbage to the page's own parameters with odd values. */
const query = fc.option(
  fc.dictionary(
    fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom("notice", "state", "code", "error")),
    fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.constantFrom("access_denied", "rules_saved", "__proto__"),
    ),
    { maxKeys: 4 },
  ),
  { nil: undefined },
);

/** A form's other fields: what each settings form reads, and garbage, some of them huge. */
const formFields = fc.dictionary(
  fc.oneof(
    fc.constantFrom("url", "sourceId", "id", "start", "end", "message", "confirm", "csrf"),
    fc.string({ maxLength: 12 }),
  ),
  fc.oneof(
    fc.string({ maxLength: 60 }),
    fc.constantFrom("https://calendar.example/x.ics", "2026-01-05", "on", "office"),
    fc.integer({ min: 10_000, max: 300_000 }).map((n) => "x".repeat(n)),
  ),
  { maxKeys: 5 },
);

/** A body as sent: url-encoded (right or wrong content type), raw garbage, or base64-flagged. */
const wireOf = (fields: fc.Arbitrary<Record<string, string>>) =>
  fc
    .record({
      fields,
      raw: fc.option(fc.string({ maxLength: 200 }), { nil: undefined }),
      contentType: fc.constantFrom(
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json",
        "text/plain",
        "",
      ),
      base64: fc.boolean(),
    })
    .map(({ fields, raw, contentType, base64 }) => {
      const text = raw ?? new URLSearchParams(fields).toString();
      return {
        body: base64 ? Buffer.from(text, "utf8").toString("base64") : text,
        isBase64Encoded: base64,
        headers: contentType ? { "content-type": contentType } : ({} as Record<string, string>),
      };
    });

const send = (
  route: Route,
  req: {
    cookies?: string[] | undefined;
    query?: Record<string, string> | undefined;
    wire?: { body: string; isBase64Encoded: boolean; headers: Record<string, string> };
  },
) =>
  sendAndExpectRefusal(
    stack,
    handler,
    apiEvent({
      method: route.method,
      route: route.path,
      rawPath: route.path,
      headers: { host: new URL(FRONT_DOOR.publicBaseUrl).host, ...(req.wire?.headers ?? {}) },
      ...(req.query ? { query: req.query } : {}),
      ...(req.cookies ? { cookies: req.cookies } : {}),
      ...(req.wire ? { body: req.wire.body, isBase64Encoded: req.wire.isBase64Encoded } : {}),
    }),
    webNoOp(route),
    "json-or-page",
  );

const isPage = (res: APIGatewayProxyStructuredResultV2, status: number) => {
  expect(res.statusCode, res.body?.slice(0, 300)).toBe(status);
  expect(contentTypeOf(res)).toMatch(/^text\/html/);
};

describe("the front door under fuzzing", () => {
  beforeAll(async () => {
    stack = await startFuzzStack();
    handler = (await webRoutes[0]?.load())?.createHandler(() => stack.app) as AnyHandler;
    alice = await credentialsOf(stack.app, ALICE);
    bob = await credentialsOf(stack.app, BOB);
    states = await installStates(stack.app, stack.clock);
  });
  afterAll(async () => stack?.close());

  it("lets a current session with its own CSRF token change something, so the checks can fail", async () => {
    // Prepare
    const pause = settingsForms.find((r) => r.path === "/settings/pause") as Route;
    const before = await stack.observe();
    // Act
    const res = await invoke(
      handler,
      apiEvent({
        method: "POST",
        route: pause.path,
        rawPath: pause.path,
        headers: { "content-type": "application/x-www-form-urlencoded" },
        cookies: [alice.cookie],
        body: new URLSearchParams({ csrf: alice.csrf }).toString(),
      }),
    );
    // Assess
    expect(res.statusCode).toBe(303);
    expect((await stack.observe()).items).not.toEqual(before.items);
  });

  it("sends a request without a current session to /install, on every route that needs one", async () => {
    await fuzz(
      fc.record({
        route: fc.constantFrom(settingsPage, ...settingsForms),
        cookies: noSession(),
        query,
        wire: wireOf(
          fc
            .tuple(formFields, fc.constantFrom(undefined, alice.csrf, bob.csrf))
            .map(([fields, csrf]) => (csrf ? { ...fields, csrf } : fields)),
        ),
      }),
      120,
      async ({ route, cookies, query, wire }) => {
        const res = await send(route, {
          cookies,
          query,
          ...(route.method === "POST" ? { wire } : {}),
        });
        expect(isToInstall(res), `${res.statusCode} ${locationOf(res)}`).toBe(true);
      },
    );
  });

  it("refuses a settings form whose CSRF token is missing, forged or another session's with 403", async () => {
    await fuzz(
      fc.record({
        route: fc.constantFrom(...settingsForms),
        // Alice's session with a token that is not hers, or Bob's session with Alice's token.
        who: fc.constantFrom("alice", "bob"),
        csrf: fc.oneof(
          fc.constant(undefined),
          fc.string({ maxLength: 80 }),
          fc.base64String({ minLength: 43, maxLength: 44 }),
          fc.integer({ min: 1, max: 10 }).map((n) => alice.csrf.slice(0, -n)),
          fc.constant(`${alice.csrf}x`),
          fc.constant(alice.csrf.toUpperCase()),
          fc.constant(bob.csrf),
        ),
        fields: formFields,
        contentType: fc.constantFrom("application/x-www-form-urlencoded", "text/plain", ""),
        query,
      }),
      150,
      async ({ route, who, csrf, fields, contentType, query }) => {
        const { csrf: _field, ...rest } = fields;
        const token = who === "bob" ? alice.csrf : csrf;
        const cookie = who === "bob" ? bob.cookie : alice.cookie;
        if (who === "alice" && token === alice.csrf) return;
        const body = new URLSearchParams({
          ...rest,
          ...(token !== undefined ? { csrf: token } : {}),
        }).toString();
        const res = await send(route, {
          cookies: [cookie],
          query,
          wire: {
            body,
            isBase64Encoded: false,
            headers: contentType ? { "content-type": contentType } : {},
          },
        });
        isPage(res, 403);
      },
    );
  });

  it("answers a bad, expired or replayed install state with a 400 page, whatever else is asked", async () => {
    await fuzz(
      fc.record({
        state: fc.oneof(
          fc.constant(undefined),
          fc.string({ maxLength: 120 }),
          fc.constant(states.expired.state),
          fc.constant(states.replayed.state),
          // A fresh state of another browser (its binding cookie not sent) or a changed one.
          fc.constant("other-browser"),
          fc.integer({ min: 1, max: 30 }).map((n) => `tampered:${n}`),
        ),
        binding: fc.constantFrom("expired", "replayed", "fresh", "none"),
        extra: fc.record(
          {
            error: fc.oneof(fc.constant("access_denied"), fc.string({ maxLength: 20 })),
            code: fc.string({ maxLength: 40 }),
          },
          { requiredKeys: [] },
        ),
        cookies: fc.oneof(fc.constant([] as string[]), fc.constant([alice.cookie] as string[])),
      }),
      120,
      async ({ state, binding, extra, cookies }) => {
        const fresh = states.fresh();
        const sent =
          state === "other-browser"
            ? fresh.state
            : state?.startsWith("tampered:")
              ? flipFromEnd(fresh.state, Number(state.slice("tampered:".length)))
              : state;
        const bindingCookie =
          binding === "expired"
            ? states.expired.cookie
            : binding === "replayed"
              ? states.replayed.cookie
              : binding === "fresh" && state !== "other-browser"
                ? fresh.cookie
                : undefined;
        const res = await send(callbackRoute, {
          cookies: [...cookies, ...(bindingCookie ? [bindingCookie] : [])],
          query: { ...extra, ...(sent !== undefined ? { state: sent } : {}) },
        });
        isPage(res, 400);
      },
    );
  });

  it("sends GET /install to the consent page with a new state, writing nothing, whatever is sent", async () => {
    await fuzz(
      fc.record({ cookies: fc.oneof(noSession(), fc.constant([alice.cookie] as string[])), query }),
      40,
      async ({ cookies, query }) => {
        const res = await send(installRoute, { cookies, query });
        expect(res.statusCode).toBe(302);
        const to = new URL(locationOf(res));
        expect(to.searchParams.get("client_id")).toBe(FRONT_DOOR.clientId);
        expect(to.searchParams.get("state")).toMatch(/\S/);
      },
    );
  });

  it("shows a signed-in person their page, writing nothing, whatever the query", async () => {
    await fuzz(
      fc.record({ who: fc.constantFrom(alice, bob), query }),
      30,
      async ({ who, query }) => {
        const res = await send(settingsPage, { cookies: [who.cookie], query });
        expect(res.statusCode).toBe(200);
      },
    );
  });

  it("shows the 'nothing installed' page when the person declines, with a good state", async () => {
    // Prepare
    const fresh = states.fresh();
    const before = await stack.observe();
    // Act
    const res = await invoke(
      handler,
      apiEvent({
        method: "GET",
        route: callbackRoute.path,
        rawPath: callbackRoute.path,
        headers: {},
        query: { state: fresh.state, error: "access_denied" },
        cookies: [fresh.cookie],
      }),
    );
    // Assess: the page, and nothing but the state's single-use mark written.
    isPage(res, 200);
    expect(res.body).toContain("Nothing was installed");
    const after = await stack.observe();
    const withoutMarks = (items: string) =>
      items.split("\n").filter((line) => !line.includes("oauth-state#"));
    expect(withoutMarks(after.items)).toEqual(withoutMarks(before.items));
    expect(after.syncs).toBe(before.syncs);
    expect(after.serviceCalls).toBe(before.serviceCalls);
  });
});

describe("the front door when it is not configured", () => {
  let bare: FuzzStack;
  beforeAll(async () => {
    bare = await startFuzzStack({ frontDoor: false });
  });
  afterAll(async () => bare?.close());

  it("answers every web route 503 with a page naming the settings to set, logged once", async () => {
    // Prepare
    const web = (await webRoutes[0]?.load())?.createHandler(() => bare.app) as AnyHandler;
    const mark = bare.logs.lines.length;
    // Act: every route twice.
    const answers = [];
    for (const route of [...webRoutes, ...webRoutes]) {
      answers.push(
        await invoke(
          web,
          apiEvent({ method: route.method, route: route.path, rawPath: route.path, headers: {} }),
        ),
      );
    }
    // Assess
    for (const res of answers) {
      isPage(res, 503);
      for (const name of ["OAUTH_CLIENT_ID", "OAUTH_CLIENT_SECRET", "WEB_KEY", "PUBLIC_BASE_URL"]) {
        expect(res.body).toContain(name);
      }
      for (const secret of Object.values(SECRETS)) expect(res.body).not.toContain(secret);
    }
    const told = bare.logs
      .since(mark)
      .filter((line) => line.includes("front door is not configured"));
    expect(told).toHaveLength(1);
  });

  it("counts a secret given as an SSM parameter name as set, and names only what is missing", () => {
    // Prepare
    const base = {
      TABLE_NAME: "t",
      SERVICE_BASE_URL: "https://api.example",
      SIGNING_SECRET: "s",
      TOKEN_KEY: "k",
    };
    const byParams = loadConfig({
      ...base,
      OAUTH_CLIENT_ID: "1.2",
      OAUTH_CLIENT_SECRET_PARAM: "/sp/client-secret",
      WEB_KEY_PARAM: "/sp/web-key",
      PUBLIC_BASE_URL: "https://sp.example",
    });
    const noClientId = loadConfig({
      ...base,
      OAUTH_CLIENT_SECRET: "c",
      WEB_KEY: SECRETS.webKey,
      PUBLIC_BASE_URL: "https://sp.example",
    });
    // Act, Assess
    expect(missingFrontDoorSettings(byParams)).toEqual([]);
    expect(missingFrontDoorSettings(noClientId)).toEqual(["OAUTH_CLIENT_ID"]);
  });
});
