import { ScanCommand } from "@aws-sdk/client-dynamodb";
import type { Context } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_ONCE_TTL_S, powertoolsEventOnce } from "#functions/shared/idempotency";
import { systemClock } from "#lib/app/compose/system-clock";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";

let dynamo: LocalDynamo;
const gateOf = (gate: string) =>
  powertoolsEventOnce(
    { TABLE_NAME: dynamo.tableName, AWS_REGION: "us-east-1", DYNAMODB_ENDPOINT: dynamo.endpoint },
    gate,
  );

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
    // Act
    const first = once.run("Ev0004", async () => {
      await slow;
      return 1;
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
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

  it("gives an in-progress record the invocation's deadline, so a crashed invocation's redelivery runs", async () => {
    // Prepare: an invocation with 5 s left; the record is read while its work runs.
    const remainingMs = 5_000;
    const context = { getRemainingTimeInMillis: () => remainingMs } as unknown as Context;
    const once = powertoolsEventOnce(
      { TABLE_NAME: dynamo.tableName, AWS_REGION: "us-east-1", DYNAMODB_ENDPOINT: dynamo.endpoint },
      "test-deadline",
      () => context,
    );
    let inProgressExpiry: number | undefined;
    // Act
    const before = systemClock.now();
    await once.run("Ev0009", async () => {
      const items = await dynamo.client.send(new ScanCommand({ TableName: dynamo.tableName }));
      const record = (items.Items ?? []).find((i) => i.PK?.S === "IDEMPOTENCY#test-deadline");
      inProgressExpiry = Number(record?.in_progress_expiration?.N);
      return "recorded";
    });
    // Assess: the deadline is now + the invocation's remaining time (ms), not the record's hour.
    expect(inProgressExpiry).toBeGreaterThanOrEqual(before + remainingMs - 1_000);
    expect(inProgressExpiry).toBeLessThanOrEqual(systemClock.now() + remainingMs + 1_000);
  });
});
