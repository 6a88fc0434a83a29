import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  ScheduledEvent,
  SQSBatchResponse,
  SQSEvent,
} from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHandler as createAdminHandler } from "#functions/http/admin";
import { createHandler as createCalendarHandler } from "#functions/http/calendar";
import { createHandler as createSyncHandler } from "#functions/queue/sync";
import { createHandler as createTransitionHandler } from "#functions/queue/transition";
import { createHandler as createPollHandler } from "#functions/schedule/poll";
import { createHandler as createTickHandler } from "#functions/schedule/tick";
import {
  eventFixture,
  FIXTURE_NOW_MS,
  fixturePath,
  lambdaContext,
  type Stack,
  startStack,
} from "./harness";

const alice = { team: "T0DEMO", user: "U001" };
const ctx = lambdaContext("statuspilot-test");
let stack: Stack;
const adminHandler = createAdminHandler(() => stack.app);
const calendarHandler = createCalendarHandler(() => stack.app);
const syncHandler = createSyncHandler(() => stack.app);
const transitionHandler = createTransitionHandler(() => stack.app);
const pollHandler = createPollHandler(() => stack.app);
const tickHandler = createTickHandler(() => stack.app);
let feed: Server;
let feedRequests: Array<{ path: string; ifNoneMatch?: string }> = [];

const http = async (
  handler: typeof calendarHandler,
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> =>
  (await handler(event, ctx)) as APIGatewayProxyStructuredResultV2;
const bodyOf = (res: APIGatewayProxyStructuredResultV2) => JSON.parse(res.body ?? "{}");
const sqsFixture = (name: string) => eventFixture(name) as unknown as SQSEvent;

/** A loopback ICS server: /team.ics with an ETag, /broken always 500. */
async function startFeed(): Promise<string> {
  const ics = readFileSync(fixturePath("team.ics"), "utf8");
  feed = createServer((req, res) => {
    const ifNoneMatch = req.headers["if-none-match"];
    feedRequests.push({ path: req.url ?? "", ...(ifNoneMatch ? { ifNoneMatch } : {}) });
    if (req.url === "/team.ics") {
      if (ifNoneMatch === '"v1"') return void res.writeHead(304).end();
      res.writeHead(200, { "content-type": "text/calendar", etag: '"v1"' }).end(ics);
      return;
    }
    res.writeHead(500).end("down");
  });
  await new Promise<void>((resolve) => feed.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(feed.address() as AddressInfo).port}`;
}

describe("calendar pushes, queues and schedules against dynalite and the emulator", () => {
  beforeAll(async () => {
    const feedBase = await startFeed();
    stack = await startStack();
    const pilot = stack.app.pilot;
    await pilot?.upsertUser({
      key: alice,
      tz: "Europe/Berlin",
      token: "xoxp-demo-U001",
      emails: ["alice@demo.example"],
      sources: [
        { id: "office", url: `${feedBase}/team.ics`, kind: "ics" },
        { id: "broken", url: `${feedBase}/broken`, kind: "ics" },
      ],
      mode: "auto",
    });
    await pilot?.putChannel("chan-google-1", {
      key: alice,
      sourceId: "office",
      secret: "google-channel-token",
    });
    await pilot?.putChannel("sub-graph-1", {
      key: alice,
      sourceId: "office",
      secret: "graph-client-state",
    });
    await pilot?.putChannel("office", {
      key: alice,
      sourceId: "office",
      secret: "generic-hook-secret",
    });
  });
  afterAll(async () => {
    await stack?.close();
    await new Promise((resolve) => feed?.close(resolve));
  });

  /** The clientState in the Graph fixtures: sub-graph-1's token under the harness's secret. */
  const GRAPH_TOKEN = JSON.parse(eventFixture("hooks-graph-notification.json").body ?? "{}")
    .value[0].clientState as string;

  describe("POST /hooks/google", () => {
    it("enqueues one re-sync of the channel's source at once, and joins a repeat push to it", async () => {
      // Prepare
      stack.clock.set(FIXTURE_NOW_MS + 3_000);
      stack.syncs.sent.length = 0;
      // Act
      const first = await http(calendarHandler, eventFixture("hooks-google-exists.json"));
      const second = await http(calendarHandler, eventFixture("hooks-google-exists.json"));
      // Assess
      expect(first.statusCode).toBe(200);
      expect(bodyOf(second)).toMatchObject({ queued: false });
      expect(stack.syncs.sent).toEqual([
        {
          message: { team: "T0DEMO", user: "U001", sourceId: "office", reason: "push" },
          delaySeconds: 0,
        },
      ]);
    });

    it("acknowledges the sync handshake without enqueueing anything", async () => {
      stack.clock.set(FIXTURE_NOW_MS + 60_000);
      stack.syncs.sent.length = 0;
      const res = await http(calendarHandler, eventFixture("hooks-google-sync.json"));
      expect(res.statusCode).toBe(200);
      expect(stack.syncs.sent).toEqual([]);
    });

    it("refuses a wrong channel token and an unknown channel alike, with 401", async () => {
      const event = eventFixture("hooks-google-exists.json");
      const wrong = { ...event, headers: { ...event.headers, "x-goog-channel-token": "guess" } };
      const unknown = { ...event, headers: { ...event.headers, "x-goog-channel-id": "nope" } };
      const refusals = [await http(calendarHandler, wrong), await http(calendarHandler, unknown)];
      expect(refusals.map((r) => [r.statusCode, r.body])).toEqual([
        [401, refusals[0]?.body],
        [401, refusals[0]?.body],
      ]);
    });
  });

  describe("POST /hooks/graph", () => {
    it("echoes validationToken as text/plain", async () => {
      const res = await http(calendarHandler, eventFixture("hooks-graph-validation.json"));
      expect(res.statusCode).toBe(200);
      expect(res.headers?.["content-type"]).toMatch(/^text\/plain/);
      expect(res.body).toBe(
        "Validation: Testing client application reachability for subscription Request-Id: 7a5c",
      );
      expect(res.headers?.["x-content-type-options"]).toBe("nosniff");
    });

    it.each([
      ["markup", "<html><body><script>alert(document.cookie)</script></body></html>"],
      ["an attribute break", '"><img src=x onerror=alert(1)>'],
      ["a header injection", "ok\r\nSet-Cookie: sp_session=evil"],
      ["nothing", ""],
      ["more than 1024 characters", "a".repeat(1025)],
      ["non-ASCII", "Validation: tést"],
    ])("refuses a validationToken of %s with 400, reflecting none of it", async (_, token) => {
      // Prepare
      const fixture = eventFixture("hooks-graph-validation.json");
      const queued = stack.syncs.sent.length;
      // Act
      const res = await http(calendarHandler, {
        ...fixture,
        rawQueryString: new URLSearchParams({ validationToken: token }).toString(),
        queryStringParameters: { validationToken: token },
      });
      // Assess
      expect(res.statusCode).toBe(400);
      expect(res.headers?.["content-type"]).toMatch(/^application\/json/);
      expect(res.headers?.["x-content-type-options"]).toBe("nosniff");
      expect(bodyOf(res)).toEqual({
        error: "bad_request",
        message:
          "validationToken is not a Graph validation token: 1 to 1024 letters, digits, spaces or -_.:=+/",
      });
      expect(stack.syncs.sent.length).toBe(queued);
    });

    it("coalesces a batch of notifications for one subscription into one re-sync", async () => {
      stack.clock.set(FIXTURE_NOW_MS + 120_000);
      stack.syncs.sent.length = 0;
      const res = await http(calendarHandler, eventFixture("hooks-graph-notification.json"));
      expect(res.statusCode).toBe(202);
      expect(stack.syncs.sent).toHaveLength(1);
    });

    it("refuses notifications whose clientState does not match with 401", async () => {
      const event = eventFixture("hooks-graph-notification.json");
      const forged = {
        ...event,
        body: (event.body ?? "").replaceAll(GRAPH_TOKEN, "forged"),
      };
      expect((await http(calendarHandler, forged)).statusCode).toBe(401);
    });

    it("handles a lifecycle notification by re-syncing the source and queueing its upkeep", async () => {
      stack.clock.set(FIXTURE_NOW_MS + 180_000);
      stack.syncs.sent.length = 0;
      const res = await http(calendarHandler, eventFixture("hooks-graph-lifecycle.json"));
      expect(res.statusCode).toBe(202);
      expect(
        stack.syncs.sent.map(
          (s) => "sourceId" in s.message && [s.message.sourceId, s.message.reason],
        ),
      ).toEqual([
        ["office", "push"],
        ["office", "upkeep"],
      ]);
    });
  });

  describe("POST /hooks/generic/{sourceId}", () => {
    it("accepts a hook signed with the source's secret and refuses a tampered one", async () => {
      // Past the queued re-syncs above (a push joins one queued less than a minute before), and
      // inside the fixture signature's 5-minute window.
      stack.clock.set(FIXTURE_NOW_MS + 245_000);
      stack.syncs.sent.length = 0;
      const event = eventFixture("hooks-generic.json");
      const ok = await http(calendarHandler, event);
      const tampered = await http(calendarHandler, { ...event, body: '{"changed":false}' });
      expect(ok.statusCode).toBe(200);
      expect(tampered.statusCode).toBe(401);
      expect(stack.syncs.sent).toHaveLength(1);
    });
  });

  describe("queue/sync", () => {
    it("applies the feed's timeline and reports the failing and the unreadable record for the dead-letter queue", async () => {
      // Prepare
      stack.clock.set(FIXTURE_NOW_MS + 5_000);
      feedRequests = [];
      // Act
      const res = (await syncHandler(sqsFixture("sqs-sync.json"), ctx)) as SQSBatchResponse;
      // Assess
      expect(res.batchItemFailures).toEqual([
        { itemIdentifier: "22222222-2222-4222-8222-222222222222" },
        { itemIdentifier: "33333333-3333-4333-8333-333333333333" },
      ]);
      const view = await stack.app.pilot?.getStatusView(alice);
      expect(view?.nextTransitionAt).toBe(Date.UTC(2026, 0, 1, 13, 0));
      expect(feedRequests.map((r) => r.path)).toEqual(["/team.ics", "/broken"]);
    });

    it("skips a redelivered push that a later sync already covered, without fetching", async () => {
      feedRequests = [];
      const res = (await syncHandler(sqsFixture("sqs-sync.json"), ctx)) as SQSBatchResponse;
      expect(res.batchItemFailures).toHaveLength(2);
      expect(feedRequests.map((r) => r.path)).toEqual(["/broken"]);
    });
  });

  describe("schedule/tick and queue/transition", () => {
    it("enqueues the 13:00 transition with its exact delay, then sets the status at 13:00", async () => {
      // Prepare
      stack.clock.set(Date.UTC(2026, 0, 1, 12, 59, 15));
      stack.transitions.sent.length = 0;
      // Act
      const tick = await tickHandler(
        eventFixture("scheduled-tick.json") as unknown as ScheduledEvent,
        ctx,
      );
      stack.clock.set(Date.UTC(2026, 0, 1, 13, 0, 0));
      const res = (await transitionHandler(
        sqsFixture("sqs-transition.json"),
        ctx,
      )) as SQSBatchResponse;
      // Assess
      expect(tick).toEqual({ enqueued: 1 });
      expect(stack.transitions.sent[0]).toMatchObject({
        message: { team: "T0DEMO", user: "U001", at: Date.UTC(2026, 0, 1, 13, 0) },
        delaySeconds: 45,
      });
      // The record without `at` can never be read: it goes back for the dead-letter queue.
      expect(res.batchItemFailures).toEqual([
        { itemIdentifier: "55555555-5555-4555-8555-555555555555" },
      ]);
      const profile = stack.emulator.state().profiles.U001 as {
        status_text?: string;
        status_expiration?: number;
      };
      expect(profile.status_text).not.toBe("");
      expect(profile.status_expiration).toBe(Date.UTC(2026, 0, 1, 13, 30) / 1000);
    });
  });

  describe("schedule/poll", () => {
    it("re-syncs every source once in three runs (15 minutes), synced recently or not", async () => {
      stack.syncs.sent.length = 0;
      let enqueued = 0;
      for (const k of [0, 1, 2]) {
        stack.clock.set(FIXTURE_NOW_MS + (16 + 5 * k) * 60_000);
        const out = (await pollHandler(
          eventFixture("scheduled-tick.json") as unknown as ScheduledEvent,
          ctx,
        )) as { enqueued: number };
        enqueued += out.enqueued;
      }
      expect(enqueued).toBe(2);
      // The poll's messages carry its sources in batches.
      const checks = stack.syncs.sent.flatMap((s) =>
        "sources" in s.message ? s.message.sources : [s.message],
      );
      expect(checks.map((m) => [m.sourceId, m.reason]).sort()).toEqual([
        ["broken", "poll"],
        ["office", "poll"],
      ]);
    });

    it("writes nothing when the feed answered 304 and keeps the source on its poll phase", async () => {
      // Prepare
      const now = FIXTURE_NOW_MS + 16 * 60_000;
      stack.clock.set(now);
      feedRequests = [];
      const app = stack.app;
      const before = await app.admin.getUser(alice);
      const dueIn = async () =>
        (await Promise.all([0, 1, 2].map((k) => app.admin.sourcesDue(now + k * 5 * 60_000))))
          .flat()
          .map((d) => d.sourceId)
          .sort();
      const dueBefore = await dueIn();
      // Act: the poll's re-sync of the unchanged feed
      const outcome = await app.syncSource({ ...alice, sourceId: "office", reason: "poll" });
      // Assess
      expect(outcome).toEqual({ kind: "unchanged", reason: "not_modified" });
      expect(feedRequests).toEqual([{ path: "/team.ics", ifNoneMatch: '"v1"' }]);
      expect(await app.admin.getUser(alice)).toEqual(before);
      expect(dueBefore).toEqual(["broken", "office"]);
      expect(await dueIn()).toEqual(dueBefore);
    });
  });

  describe("/admin/users/{team}/{user}/ooo", () => {
    it("schedules, lists and cancels out-of-office with the API key", async () => {
      stack.clock.set(FIXTURE_NOW_MS);
      const created = await http(adminHandler, eventFixture("admin-post-ooo.json"));
      expect(created.statusCode).toBe(201);
      const id = bodyOf(created).entry.id as string;
      const listed = await http(adminHandler, eventFixture("admin-get-ooo.json"));
      expect(bodyOf(listed).entries.map((e: { id: string }) => e.id)).toContain(id);
      const del = eventFixture("admin-delete-ooo.json");
      const withId = { ...del, pathParameters: { team: "T0DEMO", user: "U001", id } };
      expect((await http(adminHandler, withId)).statusCode).toBe(200);
      expect((await http(adminHandler, withId)).statusCode).toBe(404);
    });

    it("refuses a missing or wrong key with 401 and a bad body with 400", async () => {
      const iamOnly = await http(adminHandler, eventFixture("admin-post-ooo-iam.json"));
      expect(iamOnly.statusCode).toBe(401);
      const event = eventFixture("admin-post-ooo.json");
      const bad = await http(adminHandler, { ...event, body: '{"start":"tomorrow"}' });
      expect(bad.statusCode).toBe(400);
      expect(bodyOf(bad).pointer).toBe("/start");
    });

    it("answers a period that has already ended with 400 naming /end", async () => {
      // Prepare
      stack.clock.set(FIXTURE_NOW_MS);
      const event = eventFixture("admin-post-ooo.json");
      const body = JSON.stringify({ start: FIXTURE_NOW_MS - 7_200_000, end: FIXTURE_NOW_MS - 1 });
      // Act
      const res = await http(adminHandler, { ...event, body });
      // Assess
      expect(res.statusCode).toBe(400);
      expect(bodyOf(res)).toMatchObject({ error: "invalid_input", pointer: "/end" });
    });

    it("answers out-of-office for a user Statuspilot does not know with 404", async () => {
      // Prepare
      stack.clock.set(FIXTURE_NOW_MS);
      const event = eventFixture("admin-post-ooo.json");
      const stranger = { ...event, pathParameters: { team: "T0DEMO", user: "U404" } };
      // Act
      const res = await http(adminHandler, stranger);
      // Assess
      expect(res.statusCode).toBe(404);
      expect(bodyOf(res)).toMatchObject({ error: "unknown_user" });
    });
  });
});
