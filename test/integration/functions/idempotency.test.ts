import { ScanCommand } from "@aws-sdk/client-dynamodb";
import type { Context } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_ONCE_TTL_S, powertoolsEventOnce } from "#functions/shared/idempotency";
import { systemClock } from "#lib/app/compose/system-clock";
import { type Clock, ManualClock } from "#lib/core/clock";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";
import { gate } from "../../support/gate";

let dynamo: LocalDynamo;
const tableConfig = () => ({
  TABLE_NAME: dynamo.tableName,
  AWS_REGION: "us-east-1",
  DYNAMODB_ENDPOINT: dynamo.endpoint,
});
const gateOf = (gate: string, clock: Clock = systemClock, invocation?: () => Context) =>
  powertoolsEventOnce(tableConfig(), gate, { clock, ...(invocation ? { invocation } : {}) });
/** An instant long before any machine running this: Powertools' own Date.now() cannot pass for it. */
const LONG_AGO = Date.UTC(2020, 2, 2, 9, 0, 0);
const recordOf = async (partition: string) => {
  const items = await dynamo.client.send(new ScanCommand({ TableName: dynamo.tableName }));
  return (items.Items ?? []).find((item) => item.PK?.S === partition);
};

describe("Powertools idempotency on our table, against dynalite", () => {
  beforeAll(async () => {
    dynamo = await startDynalite();
  });
  afterAll(async () => dynamo?.close());

  it("runs the work once per event id and answers a repeat without running it", async () => {
    // Prepare
    const once = gateOf("test-repeat");
    let runs = 0;
    const work = async () => ({ recorded: ++runs === 1 });
    // Act
    const first = await once.run("Ev0001", work);
    const again = await once.run("Ev0001", work);
    const other = await once.run("Ev0002", work);
    // Assess
    expect(first).toEqual({ value: { recorded: true } });
    expect(again).toBeUndefined();
    expect(other).toEqual({ value: { recorded: false } });
    expect(runs).toBe(2);
  });

  it("forgets an id whose work threw, so the retry runs it", async () => {
    // Prepare
    const once = gateOf("test-failure");
    // Act
    const failed = await once
      .run("Ev0003", async () => {
        throw new Error("store down");
      })
      .catch((error: unknown) => error);
    const retried = await once.run("Ev0003", async () => "done");
    // Assess
    expect(failed).toBeInstanceOf(Error);
    expect((failed as Error).message).toBe("store down");
    expect(retried).toEqual({ value: "done" });
  });

  it("answers a delivery that arrives while the first is still running as already handled", async () => {
    // Prepare
    const once = gateOf("test-concurrent");
    let release: () => void = () => undefined;
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    // Act: the function runs once the in-progress record is stored.
    const begun = gate();
    const first = once.run("Ev0004", async () => {
      begun.open();
      await slow;
      return 1;
    });
    await begun.opened;
    const during = await once.run("Ev0004", async () => 2);
    release();
    // Assess
    expect(during).toBeUndefined();
    expect(await first).toEqual({ value: 1 });
  });

  it("keeps gates apart, and stores each record under PK/SK with the table's TTL attribute", async () => {
    // Prepare
    const events = gateOf("test-events");
    const worker = gateOf("test-worker");
    // Act
    const a = await events.run("Ev0005", async () => "events");
    const b = await worker.run("Ev0005", async () => "worker");
    const items = await dynamo.client.send(new ScanCommand({ TableName: dynamo.tableName }));
    // Assess
    expect([a, b]).toEqual([{ value: "events" }, { value: "worker" }]);
    const mine = (items.Items ?? []).filter((item) => item.PK?.S?.startsWith("IDEMPOTENCY#test-"));
    expect(mine.map((item) => item.PK?.S).sort()).toContain("IDEMPOTENCY#test-worker");
    for (const item of mine) {
      expect(item.SK?.S).toMatch(/^test-[a-z-]+#\S+$/);
      const expiresAt = Number(item.expiresAt?.N);
      const nowS = Math.floor(systemClock.now() / 1000);
      expect(expiresAt).toBeGreaterThan(nowS);
      expect(expiresAt).toBeLessThanOrEqual(nowS + EVENT_ONCE_TTL_S + 5);
    }
  });

  it("gives an in-progress record the invocation's deadline on the app's clock", async () => {
    // Prepare: an invocation with 5 s left; the record is read while its work runs.
    const clock = new ManualClock(LONG_AGO);
    const remainingMs = 5_000;
    const context = { getRemainingTimeInMillis: () => remainingMs } as unknown as Context;
    const once = gateOf("test-deadline", clock, () => context);
    let inProgress: Awaited<ReturnType<typeof recordOf>>;
    // Act
    await once.run("Ev0009", async () => {
      inProgress = await recordOf("IDEMPOTENCY#test-deadline");
      return "recorded";
    });
    // Assess: the deadline is now + the invocation's remaining time (ms), not the record's hour.
    expect(inProgress?.status?.S).toBe("INPROGRESS");
    expect(Number(inProgress?.in_progress_expiration?.N)).toBe(LONG_AGO + remainingMs);
    expect(Number(inProgress?.expiresAt?.N)).toBe(LONG_AGO / 1000 + EVENT_ONCE_TTL_S);
  });

  it("remembers an event for an hour of the app's clock, then runs it again", async () => {
    // Prepare: a clock an hour's worth of seconds can be moved through.
    const clock = new ManualClock(LONG_AGO);
    const once = gateOf("test-expiry", clock);
    let runs = 0;
    const work = async () => ++runs;
    // Act
    const first = await once.run("Ev0010", work);
    const stored = await recordOf("IDEMPOTENCY#test-expiry");
    clock.advance((EVENT_ONCE_TTL_S - 1) * 1000);
    const withinTheHour = await once.run("Ev0010", work);
    clock.advance(2_000);
    const afterTheHour = await once.run("Ev0010", work);
    // Assess
    expect(first).toEqual({ value: 1 });
    expect(stored?.status?.S).toBe("COMPLETED");
    expect(Number(stored?.expiresAt?.N)).toBe(LONG_AGO / 1000 + EVENT_ONCE_TTL_S);
    expect(withinTheHour).toBeUndefined();
    expect(afterTheHour).toEqual({ value: 2 });
  });

  it("runs a redelivery once the crashed invocation's deadline has passed on the app's clock", async () => {
    // Prepare: the first invocation (5 s left) never finishes its work.
    const clock = new ManualClock(LONG_AGO);
    const context = { getRemainingTimeInMillis: () => 5_000 } as unknown as Context;
    const once = gateOf("test-crash", clock, () => context);
    let release: () => void = () => undefined;
    const begun = gate();
    const stuck = once.run("Ev0011", () => {
      begun.open();
      return new Promise<string>((resolve) => (release = () => resolve("late")));
    });
    await begun.opened;
    // Act
    const beforeDeadline = await once.run("Ev0011", async () => "early");
    clock.advance(6_000);
    const afterDeadline = await once.run("Ev0011", async () => "redelivered");
    release();
    await stuck.catch(() => undefined);
    // Assess
    expect(beforeDeadline).toBeUndefined();
    expect(afterDeadline).toEqual({ value: "redelivered" });
  });
});
