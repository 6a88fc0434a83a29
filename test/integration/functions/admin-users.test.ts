import { createHmac } from "node:crypto";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandler as createAdminUsers } from "#functions/http/admin-users";
import { createHandler as createCalendarHooks } from "#functions/http/calendar";
import { eventFixture, lambdaContext, type Stack, startStack } from "./harness";

let stack: Stack;
const adminUsers = createAdminUsers(() => stack.app);
const calendarHooks = createCalendarHooks(() => stack.app);
const ctx = lambdaContext("statuspilot-test-adminUsers");
const call = async (
  handler: typeof adminUsers,
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> =>
  (await handler(event, ctx)) as APIGatewayProxyStructuredResultV2;
const bodyOf = (res: APIGatewayProxyStructuredResultV2) => JSON.parse(res.body ?? "{}");

/** The fixture's PUT /admin/channels for `channelId`, its body with `extra` (e.g. a kind). */
const putChannel = (channelId: string, extra: Record<string, unknown>): APIGatewayProxyEventV2 => {
  const fixture = eventFixture("admin-put-channel.json");
  return {
    ...fixture,
    rawPath: `/admin/channels/${channelId}`,
    pathParameters: { channelId },
    body: JSON.stringify({ ...JSON.parse(fixture.body ?? "{}"), ...extra }),
  };
};

describe("admin onboarding routes against dynalite and the emulator", () => {
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.close());

  it("creates a user with sealed secrets, shows it without them, and queues a first sync", async () => {
    // Act
    const put = await call(adminUsers, eventFixture("admin-put-user.json"));
    const got = await call(adminUsers, eventFixture("admin-get-user.json"));
    // Assess
    expect(put.statusCode).toBe(200);
    expect(bodyOf(put)).toMatchObject({ syncing: 1, user: { tz: "Europe/Lisbon", mode: "auto" } });
    expect(got.statusCode).toBe(200);
    expect(bodyOf(got).user.sources).toEqual([{ id: "work", kind: "google" }]);
    expect(got.body).not.toContain("xoxp-demo-U002");
    expect(got.body).not.toContain("channel-token-1");
    expect(stack.syncs.sent.map((s) => s.message)).toEqual([
      { team: "T0DEMO", user: "U002", sourceId: "work", reason: "manual" },
    ]);
  });

  it("binds a Google channel so its pushes re-sync the source", async () => {
    // Prepare
    await call(adminUsers, eventFixture("admin-put-user.json"));
    const push = eventFixture("hooks-google-sync.json");
    stack.clock.advance(60_000);
    // Act
    const bound = await call(adminUsers, putChannel("chan-work-1", { kind: "google" }));
    const headers = {
      ...push.headers,
      "x-goog-channel-id": "chan-work-1",
      // The token the registration answered with: the one to give Google when watching.
      "x-goog-channel-token": bodyOf(bound).token,
      "x-goog-resource-state": "exists",
    };
    const pushed = await call(calendarHooks, { ...push, headers });
    // Assess
    expect(bound.statusCode).toBe(200);
    expect(bodyOf(bound)).toMatchObject({ channelId: "chan-work-1", kind: "google" });
    expect(pushed.statusCode).toBe(200);
    expect(bodyOf(pushed)).toEqual({ ok: true, queued: true });
  });

  it("refuses a generic push naming a Google channel's id, even signed with its token", async () => {
    // Prepare
    await call(adminUsers, eventFixture("admin-put-user.json"));
    const bound = await call(adminUsers, putChannel("chan-work-g", { kind: "google" }));
    const body = JSON.stringify({ changed: true });
    const ts = Math.floor(stack.clock.now() / 1000);
    const mac = createHmac("sha256", bodyOf(bound).token).update(`v0:${ts}:${body}`).digest("hex");
    const generic = eventFixture("hooks-generic.json");
    const queuedBefore = stack.syncs.sent.length;
    // Act
    const pushed = await call(calendarHooks, {
      ...generic,
      rawPath: "/hooks/generic/chan-work-g",
      pathParameters: { sourceId: "chan-work-g" },
      headers: {
        ...generic.headers,
        "content-length": String(body.length),
        "x-statuspilot-timestamp": String(ts),
        "x-statuspilot-signature": `v0=${mac}`,
      },
      body,
    });
    // Assess
    // Answered like any unauthenticated push, so the id's binding is not revealed either.
    expect(pushed.statusCode).toBe(401);
    expect(bodyOf(pushed)).toMatchObject({ error: "bad_signature" });
    expect(stack.syncs.sent.length).toBe(queuedBefore);
  });

  it("requires a kind for a new channel and lets a re-bind keep the stored one", async () => {
    // Prepare
    await call(adminUsers, eventFixture("admin-put-user.json"));
    // Act
    const kindless = await call(adminUsers, putChannel("chan-work-new", {}));
    const bad = await call(adminUsers, putChannel("chan-work-new", { kind: "carrier" }));
    const first = await call(adminUsers, putChannel("chan-work-new", { kind: "graph" }));
    const again = await call(adminUsers, putChannel("chan-work-new", {}));
    // Assess
    expect(kindless.statusCode).toBe(400);
    expect(bodyOf(kindless)).toMatchObject({ error: "bad_request", pointer: "/kind" });
    expect(bad.statusCode).toBe(400);
    expect(bodyOf(bad)).toMatchObject({ error: "bad_request", pointer: "/kind" });
    expect(first.statusCode).toBe(200);
    expect(again.statusCode).toBe(200);
    expect(bodyOf(again)).toMatchObject({ channelId: "chan-work-new", kind: "graph" });
  });

  it("re-binds a channel stored before kinds existed without asking for one", async () => {
    // Prepare
    await call(adminUsers, eventFixture("admin-put-user.json"));
    const pilot = stack.app.pilot;
    await pilot?.putChannel("chan-work-old", {
      key: { team: "T0DEMO", user: "U002" },
      sourceId: "work",
      secret: "old-token",
    });
    // Act
    const again = await call(adminUsers, putChannel("chan-work-old", {}));
    // Assess
    expect(again.statusCode).toBe(200);
    expect(bodyOf(again)).not.toHaveProperty("kind");
    expect(await pilot?.findChannel("chan-work-old")).toMatchObject({ secret: "channel-token-1" });
  });

  it("answers a channel for a source the user lacks with 404, and a bad user body with 400", async () => {
    // Prepare
    const channel = eventFixture("admin-put-channel.json");
    const user = eventFixture("admin-put-user.json");
    // Act
    const unknown = await call(adminUsers, {
      ...channel,
      body: JSON.stringify({ team: "T0DEMO", user: "U002", sourceId: "nope" }),
    });
    const badZone = await call(adminUsers, {
      ...user,
      body: JSON.stringify({ tz: "Mars/Olympus", token: "x", sources: [] }),
    });
    const missing = await call(adminUsers, { ...user, body: JSON.stringify({ tz: "UTC" }) });
    // Assess
    expect(unknown.statusCode).toBe(404);
    expect(bodyOf(unknown)).toMatchObject({ error: "unknown_source" });
    expect(badZone.statusCode).toBe(400);
    expect(bodyOf(badZone)).toMatchObject({ error: "invalid_input", pointer: "/tz" });
    expect(missing.statusCode).toBe(400);
    expect(bodyOf(missing).pointer).toBe("/token");
  });

  it("answers an unknown user with 404 and refuses callers without the key", async () => {
    // Prepare
    const get = eventFixture("admin-get-user.json");
    // Act
    const stranger = await call(adminUsers, {
      ...get,
      pathParameters: { team: "T0DEMO", user: "U404" },
    });
    const { "x-api-key": _dropped, ...headers } = get.headers;
    const anonymous = await call(adminUsers, { ...get, headers });
    // Assess
    expect(stranger.statusCode).toBe(404);
    expect(anonymous.statusCode).toBe(401);
  });
});

// PUT /admin/users with rules: a rule that breaks a limit, or names a calendar the person does
// not have, is a 400 naming the field's JSON pointer and the reason in words, and nothing is
// stored; good rules are stored as given and read back parsed.
const TEAM = "T0DEMO";
const SOURCES = [
  { id: "work", url: "https://calendar.example/work.ics", kind: "ics" },
  { id: "family", url: "https://calendar.example/family.ics", kind: "ics" },
];
const lunch = { name: "Lunch", text: "At lunch", emoji: ":fork_and_knife:", priority: 15 };

/** An admin fixture's event for `user`, with `body` as its JSON when given. */
const userEvent = (name: string, user: string, body?: unknown): APIGatewayProxyEventV2 => ({
  ...eventFixture(name),
  rawPath: `/admin/users/${TEAM}/${user}`,
  pathParameters: { team: TEAM, user },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});
const putUser = (user: string, rules: unknown) =>
  userEvent("admin-put-user.json", user, {
    tz: "Europe/Lisbon",
    token: "xoxp-rules",
    sources: SOURCES,
    rules,
  });
const getUser = (user: string) => userEvent("admin-get-user.json", user);

describe("the admin API and a person's rules", () => {
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => stack?.close());

  it("stores a whole setup and answers it parsed", async () => {
    const rules = {
      custom: [{ ...lunch, keywords: ["lunch"], dnd: true }],
      focus: { dnd: true },
      skipNoGuests: true,
      skipCalendars: ["family"],
      workingHours: { start: "09:00", end: "17:30" },
      standing: "restore",
    };
    const res = await call(adminUsers, putUser("URULES1", rules));
    expect(res.statusCode).toBe(200);
    const got = bodyOf(await call(adminUsers, getUser("URULES1")));
    expect(got.user.rules).toMatchObject({
      custom: [{ ...lunch, keywords: ["lunch"], calendars: [], dnd: true }],
      focus: { dnd: true },
      skipNoGuests: true,
      skipCalendars: ["family"],
      workingHours: { days: ["mon", "tue", "wed", "thu", "fri"], start: "09:00", end: "17:30" },
      standing: "restore",
    });
  });

  it.each([
    [
      "a priority out of range",
      { custom: [{ ...lunch, priority: 100 }] },
      "/rules/custom/0/priority",
      "priority must be a whole number from 1 to 99",
    ],
    [
      "a name used twice",
      { custom: [lunch, lunch] },
      "/rules/custom/1/name",
      'name "Lunch" is taken',
    ],
    [
      "a name too long",
      { custom: [{ ...lunch, name: "n".repeat(41) }] },
      "/rules/custom/0/name",
      "at most 40 characters",
    ],
    [
      "21 statuses",
      { custom: Array.from({ length: 21 }, (_, i) => ({ ...lunch, name: `S${i}` })) },
      "/rules/custom",
      "at most 20 custom statuses",
    ],
    [
      "an unknown calendar to match",
      { custom: [{ ...lunch, calendars: ["work", "gym"] }] },
      "/rules/custom/0/calendars/1",
      'no calendar "gym"',
    ],
    [
      "an unknown calendar to skip",
      { skipCalendars: ["cal9"] },
      "/rules/skipCalendars/0",
      'no calendar "cal9"; this person\'s calendars are: work, family',
    ],
    [
      "a bad working-hours time",
      { workingHours: { start: "9am", end: "17:30" } },
      "/rules/workingHours/start",
      "HH:MM",
    ],
    [
      "dnd that is not a boolean",
      { meeting: { dnd: "yes" } },
      "/rules/meeting/dnd",
      "dnd must be true or false",
    ],
    ["an unknown standing", { standing: "sometimes" }, "/rules/standing", '"keep" or "restore"'],
  ])(
    "refuses %s with 400, the pointer and the reason, and stores nothing",
    async (_what, rules, pointer, words) => {
      const user = `UBAD${pointer.length}${String(words.length)}`;
      const res = await call(adminUsers, putUser(user, rules));
      expect(res.statusCode).toBe(400);
      expect(bodyOf(res)).toMatchObject({ error: "invalid_input", pointer });
      expect(bodyOf(res).message).toContain(words);
      expect((await call(adminUsers, getUser(user))).statusCode).toBe(404);
    },
  );

  it("keeps the rules stored before a refused replacement", async () => {
    await call(adminUsers, putUser("URULES2", { custom: [lunch] }));
    const refused = await call(
      adminUsers,
      putUser("URULES2", { custom: [{ ...lunch, priority: 0 }] }),
    );
    expect(refused.statusCode).toBe(400);
    const got = bodyOf(await call(adminUsers, getUser("URULES2")));
    expect(got.user.rules.custom).toEqual([{ ...lunch, keywords: [], calendars: [], dnd: false }]);
  });
});
