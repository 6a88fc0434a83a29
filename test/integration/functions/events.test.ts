import { ScanCommand } from "@aws-sdk/client-dynamodb";
import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  SQSBatchResponse,
  SQSEvent,
} from "aws-lambda";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createHandler as createEventsHandler } from "#functions/http/events";
import { createHandler as createOooHandler } from "#functions/http/ooo-command";
import { createHandler as createStatuspilotHandler } from "#functions/http/statuspilot-command";
import { createHandler as createTransitionHandler } from "#functions/queue/transition";
import type { SourceInput } from "#lib/app/contracts";
import { signV0 } from "../../../lib/webhooks";
import { eventFixture, FIXTURE_NOW_MS, lambdaContext, type Stack, startStack } from "./harness";

const alice = { team: "T0DEMO", user: "U001" };
let stack: Stack;
const eventsHandler = createEventsHandler(() => stack.app);
const oooHandler = createOooHandler(() => stack.app);
const statuspilotHandler = createStatuspilotHandler(() => stack.app);
const transitionHandler = createTransitionHandler(() => stack.app);

async function invoke(
  handler: typeof eventsHandler,
  event: APIGatewayProxyEventV2,
): Promise<APIGatewayProxyStructuredResultV2> {
  return (await handler(
    event,
    lambdaContext("statuspilot-test-serviceEvents"),
  )) as APIGatewayProxyStructuredResultV2;
}

/** A fresh stack, with alice set up in Berlin with her demo token and `sources`. */
async function startStackWithAlice(sources: SourceInput[] = []): Promise<void> {
  stack = await startStack();
  await stack.app.pilot?.upsertUser({
    key: alice,
    tz: "Europe/Berlin",
    token: "xoxp-demo-U001",
    sources,
    mode: "auto",
  });
}

/** The fixture with a new body, re-signed at the fixture's timestamp. */
function resigned(name: string, body: string): APIGatewayProxyEventV2 {
  const event = eventFixture(name);
  const ts = event.headers["x-svc-request-timestamp"] ?? "";
  return {
    ...event,
    body,
    headers: { ...event.headers, "x-svc-signature": signV0("demo-signing-secret", ts, body) },
  };
}

describe("POST /service/events against dynalite and the emulator", () => {
  beforeAll(async () => startStackWithAlice());
  afterAll(async () => stack?.close());
  beforeEach(() => stack.clock.set(FIXTURE_NOW_MS));

  it("echoes the challenge of a signed url_verification as plain text", async () => {
    // Act
    const res = await invoke(eventsHandler, eventFixture("service-url-verification.json"));
    // Assess
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P");
  });

  it("records the user's actual status from a signed user_change", async () => {
    // Act
    const res = await invoke(eventsHandler, eventFixture("service-user-change.json"));
    // Assess
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body ?? "{}")).toMatchObject({ ok: true, duplicate: false });
    const view = await stack.app.pilot?.getStatusView(alice);
    expect(view?.actual).toMatchObject({
      source: "manual",
      status: { text: "Lunch", emoji: ":sandwich:" },
    });
  });

  it("answers a duplicate event_id, and a retry of it, with 200 and does nothing", async () => {
    // Prepare
    await invoke(eventsHandler, eventFixture("service-user-change.json"));
    const before = stack.emulator.calls().length;
    // Act
    const again = await invoke(eventsHandler, eventFixture("service-user-change.json"));
    const retry = await invoke(eventsHandler, eventFixture("service-user-change-retry.json"));
    // Assess
    expect(again.statusCode).toBe(200);
    expect(JSON.parse(again.body ?? "{}")).toMatchObject({ duplicate: true });
    expect(retry.statusCode).toBe(200);
    expect(JSON.parse(retry.body ?? "{}")).toMatchObject({ duplicate: true });
    expect(stack.emulator.calls().length).toBe(before);
  });

  it("answers a retry from the idempotency record in the table, without recording again", async () => {
    // Prepare: the first delivery is handled; then recording would fail if it ran again
    await invoke(eventsHandler, eventFixture("service-user-change.json"));
    const app = stack.app;
    const record = vi.spyOn(app.useCases, "recordUserChange").mockRejectedValue(new Error("ran"));
    // Act
    const retry = await invoke(eventsHandler, eventFixture("service-user-change-retry.json"));
    record.mockRestore();
    const items = await stack.dynamo.client.send(
      new ScanCommand({ TableName: stack.dynamo.tableName }),
    );
    // Assess
    expect(retry.statusCode).toBe(200);
    expect(JSON.parse(retry.body ?? "{}")).toMatchObject({ ok: true, duplicate: true });
    expect(record).not.toHaveBeenCalled();
    expect(items.Items?.some((i) => i.PK?.S === "IDEMPOTENCY#service-events")).toBe(true);
  });

  it("refuses a tampered body with 401", async () => {
    // Prepare
    const event = eventFixture("service-user-change.json");
    const tampered = { ...event, body: (event.body ?? "").replace("Lunch", "Hacked") };
    // Act
    const res = await invoke(eventsHandler, tampered);
    // Assess
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body ?? "{}")).toMatchObject({ error: "bad_signature" });
  });

  it("refuses a correctly signed request more than five minutes old with 401", async () => {
    // Prepare
    stack.clock.set(FIXTURE_NOW_MS + 301_000);
    // Act
    const res = await invoke(eventsHandler, eventFixture("service-url-verification.json"));
    // Assess
    expect(res.statusCode).toBe(401);
    expect(JSON.parse(res.body ?? "{}")).toMatchObject({ error: "stale_timestamp" });
  });

  it("refuses a request without signature headers with 401", async () => {
    const event = eventFixture("service-url-verification.json");
    const { "x-svc-signature": _dropped, ...headers } = event.headers;
    const res = await invoke(eventsHandler, { ...event, headers });
    expect(res.statusCode).toBe(401);
  });

  it("answers a signed body that is not JSON with 400", async () => {
    const res = await invoke(eventsHandler, eventFixture("service-malformed.json"));
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body ?? "{}")).toMatchObject({ message: "body is not valid JSON" });
  });

  it("answers a user_change without a user id with 400 naming the field", async () => {
    const res = await invoke(eventsHandler, eventFixture("service-user-change-incomplete.json"));
    expect(res.statusCode).toBe(400);
    expect(JSON.parse(res.body ?? "{}").pointer).toBe("/user/id");
  });

  it("acknowledges an unknown event type with 200 and changes nothing", async () => {
    // Prepare
    const before = stack.emulator.calls().length;
    // Act
    const res = await invoke(eventsHandler, eventFixture("service-unknown-event.json"));
    // Assess
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body ?? "{}")).toMatchObject({ ignored: "reaction_added" });
    expect(stack.emulator.calls().length).toBe(before);
  });

  it("ignores a user_change for a user Statuspilot does not know", async () => {
    const body = (eventFixture("service-user-change.json").body ?? "")
      .replaceAll("U001", "U999")
      .replace("Ev0USERCHANGE1", "Ev0STRANGER");
    const res = await invoke(eventsHandler, resigned("service-user-change.json", body));
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body ?? "{}")).toEqual({ ok: true, ignored: "unknown_user" });
    expect(await stack.app.pilot?.getStatusView({ team: "T0DEMO", user: "U999" })).toBeUndefined();
  });
});

describe("a user_change deferred to the transition queue", () => {
  beforeAll(async () => startStackWithAlice());
  afterAll(async () => stack?.close());

  it("is recorded by the worker once, even when delivered twice", async () => {
    // Prepare: the message the events endpoint queues when recording outlasts its deadline
    const sqs = eventFixture("sqs-transition.json") as unknown as SQSEvent;
    const [record] = sqs.Records;
    if (!record) throw new Error("fixture has no record");
    const change = {
      eventId: "Ev0DEFERRED",
      eventTime: FIXTURE_NOW_MS / 1000,
      key: alice,
      status: { text: "In the garden", emoji: ":seedling:", expiration: 0 },
    };
    const body = JSON.stringify({ ...alice, at: FIXTURE_NOW_MS, reason: "user_change", change });
    const event = { Records: [{ ...record, body }] } as SQSEvent;
    // Act
    const first = (await transitionHandler(event, lambdaContext("t"))) as SQSBatchResponse;
    const again = (await transitionHandler(event, lambdaContext("t"))) as SQSBatchResponse;
    // Assess
    expect(first.batchItemFailures).toEqual([]);
    expect(again.batchItemFailures).toEqual([]);
    const view = await stack.app.pilot?.getStatusView(alice);
    expect(view?.actual).toMatchObject({
      source: "manual",
      status: { text: "In the garden", emoji: ":seedling:" },
    });
    expect(stack.emulator.calls().filter((c) => c.method === "users.profile.set")).toEqual([]);
  });
});

describe("POST /service/commands/ooo against dynalite and the emulator", () => {
  beforeAll(async () => startStackWithAlice());
  afterAll(async () => stack?.close());

  it("schedules out-of-office from a signed /ooo command, reading dates in the user's zone", async () => {
    // Act
    const res = await invoke(oooHandler, eventFixture("ooo-command-schedule.json"));
    // Assess
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body ?? "{}").text).toMatch(
      /^Scheduled .*2026-01-05 00:00 → 2026-01-10 00:00/,
    );
    const entries = await stack.app.useCases.listOutOfOffice(alice);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      start: Date.UTC(2026, 0, 4, 23, 0),
      end: Date.UTC(2026, 0, 9, 23, 0),
    });
    expect(entries[0]?.text).toContain("Skiing");
  });

  it("lists and cancels through the same command", async () => {
    // Prepare
    const [entry] = await stack.app.useCases.listOutOfOffice(alice);
    const form = (text: string) =>
      new URLSearchParams({ team_id: "T0DEMO", user_id: "U001", command: "/ooo", text }).toString();
    // Act
    const listed = await invoke(oooHandler, resigned("ooo-command-schedule.json", form("list")));
    const cancelled = await invoke(
      oooHandler,
      resigned("ooo-command-schedule.json", form(`cancel ${entry?.id}`)),
    );
    // Assess
    expect(JSON.parse(listed.body ?? "{}").text).toContain(entry?.id);
    expect(JSON.parse(cancelled.body ?? "{}").text).toBe(`Cancelled ${entry?.id}.`);
    expect(await stack.app.useCases.listOutOfOffice(alice)).toEqual([]);
  });

  it("explains a command it cannot read instead of failing", async () => {
    const form = new URLSearchParams({
      team_id: "T0DEMO",
      user_id: "U001",
      command: "/ooo",
      text: "2026-02-30",
    });
    const res = await invoke(oooHandler, resigned("ooo-command-schedule.json", form.toString()));
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body ?? "{}").text).toMatch(/not a calendar date/);
  });

  it("tells a workspace user who is not set up so, instead of failing", async () => {
    // Prepare
    const form = new URLSearchParams({
      team_id: "T0DEMO",
      user_id: "U404",
      command: "/ooo",
      text: "2026-12-01",
    });
    // Act
    const res = await invoke(oooHandler, resigned("ooo-command-schedule.json", form.toString()));
    // Assess
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(res.body ?? "{}")).toEqual({
      response_type: "ephemeral",
      text: "You're not set up with Statuspilot yet.",
    });
  });

  it("refuses an unsigned command with 401", async () => {
    const event = eventFixture("ooo-command-schedule.json");
    const res = await invoke(oooHandler, { ...event, body: `${event.body}&x=1` });
    expect(res.statusCode).toBe(401);
  });
});

describe("slash-command replies echo what users and calendars wrote as text only", () => {
  /** A calendar title or /ooo text that would mention the channel and hide a link, unescaped. */
  const HOSTILE = "<!channel> Board <http://evil.example|review> & co";
  const ESCAPED = "&lt;!channel&gt; Board &lt;http://evil.example|review&gt; &amp; co";
  const form = (command: string, text: string) =>
    new URLSearchParams({ team_id: "T0DEMO", user_id: "U001", command, text }).toString();
  const replyText = (res: APIGatewayProxyStructuredResultV2): string =>
    JSON.parse(res.body ?? "{}").text;

  beforeAll(async () =>
    startStackWithAlice([{ id: "work<&>", url: "https://calendar.example/a.ics", kind: "ics" }]),
  );
  afterAll(async () => stack?.close());

  it("escapes &, < and > in an /ooo message, as scheduled and as listed", async () => {
    // Act
    const scheduled = await invoke(
      oooHandler,
      resigned("ooo-command-schedule.json", form("/ooo", `2026-12-01 ${HOSTILE}`)),
    );
    const listed = await invoke(
      oooHandler,
      resigned("ooo-command-schedule.json", form("/ooo", "list")),
    );
    // Assess: the platform shows the text as typed; nothing in it is a mention or a link
    for (const text of [replyText(scheduled), replyText(listed)]) {
      expect(text).toContain(`"${ESCAPED}"`);
      expect(text).not.toMatch(/[<>]/);
    }
    // Stored as typed: escaping belongs to the message, not to the data
    expect((await stack.app.useCases.listOutOfOffice(alice))[0]?.text).toBe(HOSTILE);
  });

  it("escapes the /ooo input it quotes back in a refusal", async () => {
    // Act
    const badDate = await invoke(
      oooHandler,
      resigned("ooo-command-schedule.json", form("/ooo", "<!here>")),
    );
    const badId = await invoke(
      oooHandler,
      resigned("ooo-command-schedule.json", form("/ooo", "cancel <@U002|boss>&")),
    );
    // Assess
    expect(replyText(badDate)).toBe(
      '"&lt;!here&gt;" is not a date (YYYY-MM-DD or YYYY-MM-DDTHH:MM)',
    );
    expect(replyText(badId)).toBe("No out-of-office with id &lt;@U002|boss&gt;&amp;.");
  });

  it("escapes an event title and a source id in /statuspilot status", async () => {
    // Prepare: the calendar says a meeting with the hostile title is on now
    const now = stack.clock.now();
    await stack.app.pilot?.applyTimeline(
      alice,
      [
        {
          start: now - 60_000,
          end: now + 3_600_000,
          text: HOSTILE,
          emoji: ":spiral_calendar_pad:",
          kind: "meeting",
          expiration: Math.floor((now + 3_600_000) / 1000),
        },
      ],
      { sourceId: "work<&>" },
    );
    // Act
    const res = await invoke(
      statuspilotHandler,
      resigned("ooo-command-schedule.json", form("/statuspilot", "status")),
    );
    // Assess
    const text = replyText(res);
    expect(text).toContain(`Calendar says: :spiral_calendar_pad: "${ESCAPED}"`);
    expect(text).toContain("• work&lt;&amp;&gt; (ics)");
    expect(text).not.toMatch(/[<>]/);
  });
});
