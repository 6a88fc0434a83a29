import { describe, expect, it } from "vitest";
import type { PushCostSample } from "#bench/support/cost-push";
import { pushFigures, pushKmsOf } from "#bench/support/cost-push-table";
import {
  priceSyncSide,
  type SyncSideCounts,
  type SyncSideModel,
  syncMessagesOf,
  syncSideDynamo,
} from "#bench/support/cost-sync-side";
import { emptyDynamoCounts } from "#bench/support/dynamo-meter";
import type { Invocation } from "#bench/support/lambda-meter";

/** Every price 1, so each figure is a count: the arithmetic is the rule restated. */
const UNIT_PRICES: SyncSideModel = {
  prices: {
    lambdaRequest: 1,
    lambdaGbSecond: 1,
    dynamoReadUnit: 1,
    dynamoWriteUnit: 1,
    sqsRequest: 1,
    httpApiRequest: 1,
    kmsRequest: 1,
  },
  memoryGb: 0.5,
  syncBatchSize: 10,
  sourcesPerMessage: 10,
};

const counts = (over: Partial<SyncSideCounts> = {}): SyncSideCounts => ({
  userDays: 2,
  pollChecks: 20,
  otherSyncMessages: 4,
  calendarReads: 24,
  pollReads: 20,
  hooks: 2,
  channelCalls: 0,
  kmsCalls: 6,
  handlerMs: 2000,
  dynamo: { reads: 10, writes: 3, readUnits: 10, writeUnits: 4 },
  ...over,
});

describe("the cost bench's calendar side", () => {
  it("prices poll checks ten to a message, ten messages to a send, and other messages alone", () => {
    // Act
    const side = priceSyncSide(counts(), UNIT_PRICES);

    // Assess: 20 checks = 2 messages = 0.2 sends and 0.2 batches; 4 other messages, 4 of each
    // SQS: (0.2 + 4 sends + 2 × 4.2 batches) / 2 days
    expect(side.sqsRequestsPerUserDay).toBeCloseTo(6.3, 9);
    // Lambda: (4.2 batches + 2 hooks) / 2 days; 1 s of handler a day at 0.5 GB
    expect(side.lambdaInvocationsPerUserDay).toBeCloseTo(3.1, 9);
    expect(side.gbSecondsPerUserDay).toBeCloseTo(0.5, 9);
    expect(side.pollReadsPerUserDay).toBe(10);
    // A day: Lambda 3.1 + 0.5, DynamoDB 5 + 2, SQS 6.3, HTTP API 1, KMS 3 = 20.9; 30 days
    expect(side.usdPerUserMonth).toBeCloseTo(20.9 * 30, 6);
    expect(side.usdBreakdown.kms).toBeCloseTo(90, 9);
  });

  it("counts the sync worker's and the hooks' DynamoDB rows only", () => {
    const row = { reads: 1, writes: 2, readUnits: 3, writeUnits: 4 };
    const total = syncSideDynamo({
      "syncWorker: GetItem USER PROFILE": row,
      "calendarHooks: GetItem CHANNEL": row,
      "transitionWorker: PutItem USER STATUS": row,
      "poll: Query index poll": row,
      "setup: PutItem USER PROFILE": row,
    });
    expect(total).toEqual({ reads: 2, writes: 4, readUnits: 6, writeUnits: 8 });
  });

  it("tells the poll's checks (sources named) from the other sync messages", () => {
    const at = 0;
    const ms = 1;
    const invocations: Invocation[] = [
      { fn: "syncWorker", at, ms, messages: 1, reasons: ["poll"], sources: 7 },
      { fn: "syncWorker", at, ms, messages: 2, reasons: ["push", "manual"], sources: 2 },
      { fn: "tick", at, ms },
    ];
    expect(syncMessagesOf(invocations)).toEqual({ pollChecks: 7, otherSyncMessages: 2 });
  });

  it("gives the push-backed user the ICS user's month with the calendar side swapped", () => {
    // Prepare: a push-backed user who polled once in 2 days and read on 2 pushes
    const sample: PushCostSample = {
      provider: "google",
      userDays: 2,
      invocations: [
        { fn: "syncWorker", at: 0, ms: 0, messages: 1, reasons: ["poll"], sources: 20 },
        { fn: "syncWorker", at: 0, ms: 0, messages: 1, reasons: ["push"], sources: 1 },
        { fn: "calendarHooks", at: 0, ms: 0 },
      ],
      dynamo: emptyDynamoCounts(),
      queueMessages: { transition: 0, sync: 2 },
      calls: {
        reads: 3,
        readsBy: { poll: 1, push: 2 },
        channelCalls: 1,
        tokenCalls: 0,
        inheritedTokenInstances: 0,
        notifications: 1,
      },
      kms: {
        encrypt: 1,
        decrypt: 3,
        asked: { encrypt: 1, decrypt: 5 },
        byFunction: { syncWorker: { encrypt: 1, decrypt: 3, asked: { encrypt: 1, decrypt: 5 } } },
        warmByFunction: { syncWorker: { encrypt: 1, decrypt: 1 } },
      },
      edits: 1,
      wallS: 1,
    };
    const totals = {
      readsPerUserDay: 100,
      readUnitsPerUserDay: 100,
      writesPerUserDay: 50,
      writeUnitsPerUserDay: 50,
      sqsRequestsPerUserDay: 60,
      invocationsBatchedPerUserDay: 20,
      usdPerUserMonth: 1000,
    };

    // Act
    const p = pushFigures(counts(), sample, totals, UNIT_PRICES);

    // Assess: ICS polls 10 a day, push-backed 0.5 a day
    expect(p.fewerPolls).toBe(20);
    expect(p.ics.usdPerUserMonth).toBeCloseTo(627, 6);
    // Push side: 20 checks = 0.2 sends + 0.2 batches, 1 push message (1 send, 1 batch), 1 hook:
    // SQS (1.2 + 2 × 1.2) / 2 = 1.8, Lambda (1.2 + 1) / 2 = 1.1, HTTP API 0.5, KMS 4 / 2 = 2; no
    // DynamoDB or handler time: 5.4 a day, 162 a month.
    expect(p.push.usdPerUserMonth).toBeCloseTo(162, 6);
    expect(p.usdPerUserMonth).toBeCloseTo(1000 - 627 + 162, 4);
    expect(p.usdSavedPerUserMonth).toBeCloseTo(627 - 162, 4);
    // Kept warm, 2 KMS requests instead of 4 in the 2 days: 1 a day less, 30 a month saved more
    expect(p.pushKms).toMatchObject({ total: 2, warm: 1 });
    expect(p.usdSavedPerUserMonthWarm).toBeCloseTo(627 - 162 + 30, 4);
    // DynamoDB reads: the ICS side's 5 a day out, the push side's 0 in.
    expect(p.readsPerUserDay).toBe(95);
    expect(p.sqsRequestsPerUserDay).toBeCloseTo(60 - 6.3 + 1.8, 1);
  });

  it("counts the push side's KMS requests as the ICS side's, plus a refresh per instance that inherited its token", () => {
    // Prepare: the sync worker's instances opened the refresh token 3 times and sealed it once
    // (a rotation); the hooks opened nothing; the connect function's seal is not the side's. Two
    // sync worker instances read with a token another instance had obtained.
    const tally = (encrypt: number, decrypt: number, asked: number) => ({
      encrypt,
      decrypt,
      asked: { encrypt, decrypt: asked },
    });
    const sample = {
      userDays: 2,
      calls: {
        reads: 9,
        readsBy: {},
        channelCalls: 1,
        tokenCalls: 6,
        inheritedTokenInstances: 2,
        notifications: 3,
      },
      kms: {
        ...tally(2, 3, 6),
        byFunction: {
          syncWorker: tally(1, 3, 6),
          calendarHooks: tally(0, 0, 0),
          connect: tally(1, 0, 0),
        },
        // Never cold: the sync worker opened the refresh token once and sealed it once
        warmByFunction: {
          syncWorker: { encrypt: 1, decrypt: 1 },
          connect: { encrypt: 1, decrypt: 0 },
        },
      },
    } as unknown as PushCostSample;

    // Act
    const kms = pushKmsOf(sample);

    // Assess: the sync worker's 1 + 3 requests, and one Decrypt for each of the 2 instances
    expect(kms).toEqual({
      total: 6,
      vault: 4,
      inheritedTokenInstances: 2,
      tokenRefreshes: 6,
      uncached: 7,
      warm: 2,
    });
  });
});
