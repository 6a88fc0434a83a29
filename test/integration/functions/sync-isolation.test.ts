import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostileFeed } from "#bench/fixtures/hostile-feed";
import { createHandler as createSyncHandler } from "#functions/queue/sync";
import { EXPANSION_CPU_BUDGET_MS } from "#lib/calendar/work-budget";
import type { UserKey } from "#lib/core/types";
import { SteppingWorkTimer } from "../../support/work-timer";
import { FIXTURE_NOW_MS, fixturePath, lambdaContext, type Stack, startStack } from "./harness";

/**
 * One feed's cost stays its own in a sync worker's batch: a feed built to explode ends as a
 * recorded "too large" outcome (its CPU budget, counted on a timer that moves 1 ms a unit of
 * work), and one cut short by the batch's deadline fails alone, reported as a partial batch
 * failure, while the other records of the batch, the same person's other calendar included,
 * are read in full.
 */

const alice: UserKey = { team: "T0DEMO", user: "U001" };
const bob: UserKey = { team: "T0DEMO", user: "U002" };
let stack: Stack;
let feeds: Server;
let explode = "";
const syncHandler = createSyncHandler(() => stack.app);

/** A sync worker's context with `remainingMs` left for the whole batch. */
const workerContext = (remainingMs: number): Context => ({
  ...lambdaContext("statuspilot-test-syncWorker"),
  getRemainingTimeInMillis: () => remainingMs,
});

const record = (id: string, key: UserKey, sourceId: string) => ({
  messageId: id,
  receiptHandle: `AQEB${id}`,
  body: JSON.stringify({ ...key, sourceId, reason: "manual" }),
  // Sent now: an earlier send would be covered by the last sync, and skipped.
  attributes: { ApproximateReceiveCount: "1", SentTimestamp: String(stack.clock.now()) },
  messageAttributes: {},
  md5OfBody: "0",
  eventSource: "aws:sqs",
  eventSourceARN: "arn:aws:sqs:eu-west-1:123456789012:statuspilot-dev-sync",
  awsRegion: "eu-west-1",
});

/** Runs one batch of `records` through the sync worker with `remainingMs` left. */
const runBatch = async (remainingMs: number, ...records: ReturnType<typeof record>[]) =>
  (await syncHandler(
    { Records: records } as unknown as SQSEvent,
    workerContext(remainingMs),
  )) as SQSBatchResponse;

const stored = async (key: UserKey, sourceId: string) =>
  (await stack.app.pilot?.loadSource(key, sourceId))?.stored;

beforeAll(async () => {
  const team = readFileSync(fixturePath("team.ics"), "utf8");
  // SECONDLY series from 2015: ical.js would step 100,000 times through each before giving up.
  explode = hostileFeed({ around: FIXTURE_NOW_MS, secondly: 40 });
  feeds = createServer((req, res) => {
    const body = req.url === "/explode.ics" ? explode : team;
    res.writeHead(200, { "content-type": "text/calendar" }).end(body);
  });
  await new Promise<void>((resolve) => feeds.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(feeds.address() as AddressInfo).port}`;
  stack = await startStack({ workTimer: new SteppingWorkTimer(1) });
  stack.clock.set(FIXTURE_NOW_MS);
  const user = (key: UserKey, sources: Array<{ id: string; url: string }>) =>
    stack.app.pilot?.upsertUser({
      key,
      tz: "Europe/Berlin",
      token: `xoxp-demo-${key.user}`,
      sources: sources.map((s) => ({ ...s, kind: "ics" as const })),
      mode: "auto",
    });
  await user(alice, [
    { id: "explode", url: `${base}/explode.ics` },
    { id: "office", url: `${base}/team.ics` },
  ]);
  await user(bob, [{ id: "office", url: `${base}/team.ics` }]);
});

afterAll(async () => {
  await stack?.close();
  await new Promise((resolve) => feeds?.close(resolve));
});

describe("a sync worker's batch with a feed built to explode", () => {
  it("records the feed as too large at its CPU budget, and reads every other source in full", async () => {
    // Act
    const res = await runBatch(
      120_000,
      record("a-explode", alice, "explode"),
      record("a-office", alice, "office"),
      record("b-office", bob, "office"),
    );
    // Assert
    expect(res.batchItemFailures).toEqual([]);
    expect((await stored(alice, "explode"))?.tooLarge).toEqual({
      limit: "time_budget",
      cap: EXPANSION_CPU_BUDGET_MS,
      at: FIXTURE_NOW_MS,
    });
    expect((await stored(alice, "explode"))?.syncedAt).toBe(FIXTURE_NOW_MS);
    for (const [key, id] of [
      [alice, "office"],
      [bob, "office"],
    ] as const) {
      const source = await stored(key, id);
      expect(source?.syncedAt).toBe(FIXTURE_NOW_MS);
      expect(source?.tooLarge).toBeUndefined();
    }
    expect((await stack.app.pilot?.getStatusView(bob))?.nextTransitionAt).toBe(
      Date.UTC(2026, 0, 1, 13, 0),
    );
  });

  it("fails only the record its deadline cut short, and hands the others their time", async () => {
    // Arrange: 5.5 s left for each record: 3 s are kept back by the chain, 1.5 s by the sync,
    // so the expansion may run 1,000 units of work, fewer than its budget.
    stack.clock.set(FIXTURE_NOW_MS + 60_000);
    const before = await stored(alice, "explode");
    // Act
    const res = await runBatch(
      5_500,
      record("b-office-2", bob, "office"),
      record("a-explode-2", alice, "explode"),
      record("a-office-2", alice, "office"),
    );
    // Assert: the explosive one back to the queue alone; nothing of its read recorded, only
    // its health (the read failed, since now: issue 26's calendar health).
    expect(res.batchItemFailures).toEqual([{ itemIdentifier: "a-explode-2" }]);
    const { health, ...after } = (await stored(alice, "explode")) ?? {};
    const { health: _earlier, ...unread } = before ?? {};
    expect(after).toEqual(unread);
    expect(health?.error).toMatchObject({ kind: "failed", since: FIXTURE_NOW_MS + 60_000 });
    expect((await stored(alice, "office"))?.syncedAt).toBe(FIXTURE_NOW_MS + 60_000);
    expect((await stored(bob, "office"))?.syncedAt).toBe(FIXTURE_NOW_MS + 60_000);
  });

  it("drops the mark once the calendar is read in full again", async () => {
    // Arrange: the feed is an ordinary calendar now.
    stack.clock.set(FIXTURE_NOW_MS + 120_000);
    explode = readFileSync(fixturePath("team.ics"), "utf8");
    // Act
    const res = await runBatch(120_000, record("a-explode-3", alice, "explode"));
    // Assert
    expect(res.batchItemFailures).toEqual([]);
    const source = await stored(alice, "explode");
    expect(source?.syncedAt).toBe(FIXTURE_NOW_MS + 120_000);
    expect(source).not.toHaveProperty("tooLarge");
  });
});
