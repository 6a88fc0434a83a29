/**
 * The calendar side of a user's cost, priced alike for an ICS source (the 15-minute poll) and a
 * connected calendar with a live push channel (a safety-net poll every 6 h): the sync checks the
 * poll sends, the syncs pushes and edits cause, the hooks that receive pushes, the calendar
 * reads, the channel's upkeep, and what they cost in DynamoDB, SQS, Lambda, HTTP API and KMS.
 * Everything downstream of a sync (transitions, status sets, the service's events) is the same
 * for the same meetings, so a push-backed user's month is the ICS user's with this side swapped.
 * The poll's own index query, which the deployment shares, is left out of both.
 */
import type { SourceCounts } from "./dynamo-meter";
import type { Invocation } from "./lambda-meter";

/** The functions whose work is the calendar side. */
export const SYNC_SIDE_FUNCTIONS = ["syncWorker", "calendarHooks"] as const;

/** Raw counts of the calendar side over `userDays`. */
export interface SyncSideCounts {
  userDays: number;
  /** Sources the poll's messages named (sync checks). */
  pollChecks: number;
  /** Sync messages for any other reason (push, hook, manual, retry), each sent alone. */
  otherSyncMessages: number;
  /** Calendar reads (feed fetches, API reads); of them, those of poll checks. */
  calendarReads: number;
  pollReads: number;
  /** Push notifications and hooks received (one HTTP request and invocation each). */
  hooks: number;
  /** Channel creations, renewals, stops at the provider. */
  channelCalls: number;
  /** KMS requests, counted through the vault: one cache of opened values per function instance. */
  kmsCalls: number;
  /** Handler time of the side's invocations (ms), measured one message at a time. */
  handlerMs: number;
  dynamo: SourceCounts;
}

/** The model's prices and shapes (cost.ts's, passed in so this file imports none of it). */
export interface SyncSideModel {
  prices: {
    lambdaRequest: number;
    lambdaGbSecond: number;
    dynamoReadUnit: number;
    dynamoWriteUnit: number;
    sqsRequest: number;
    httpApiRequest: number;
    kmsRequest: number;
  };
  memoryGb: number;
  /** The sync queue's batch size (serverless.yml). */
  syncBatchSize: number;
  /** Sources in one poll message (a deployment's poll fills them). */
  sourcesPerMessage: number;
}

/** The calendar side per user-day, and its US$ per user-month. */
export interface SyncSide {
  pollChecksPerUserDay: number;
  pollReadsPerUserDay: number;
  calendarReadsPerUserDay: number;
  hooksPerUserDay: number;
  channelCallsPerUserDay: number;
  dynamoReadsPerUserDay: number;
  dynamoReadUnitsPerUserDay: number;
  dynamoWritesPerUserDay: number;
  dynamoWriteUnitsPerUserDay: number;
  sqsRequestsPerUserDay: number;
  lambdaInvocationsPerUserDay: number;
  gbSecondsPerUserDay: number;
  kmsPerUserDay: number;
  usdPerUserMonth: number;
  usdBreakdown: Record<"lambda" | "dynamodb" | "sqs" | "httpApi" | "kms", number>;
}

/** Days in the priced month. */
export const MONTH_DAYS = 30;

/**
 * Prices the side as cost.ts prices the whole: poll messages of `sourcesPerMessage` sources,
 * ten to a SendMessageBatch, received in batches of `syncBatchSize`; other messages alone; a
 * send per message, a receive and a delete per batch.
 */
export function priceSyncSide(c: SyncSideCounts, m: SyncSideModel): SyncSide {
  const perDay = (x: number) => x / c.userDays;
  const pollMessages = c.pollChecks / m.sourcesPerMessage;
  const sends = pollMessages / 10 + c.otherSyncMessages;
  const batches = pollMessages / m.syncBatchSize + c.otherSyncMessages;
  const sqsRequests = perDay(sends + 2 * batches);
  const invocations = perDay(batches + c.hooks);
  const gbSeconds = perDay(c.handlerMs / 1000) * m.memoryGb;
  const p = m.prices;
  const usdPerDay = {
    lambda: invocations * p.lambdaRequest + gbSeconds * p.lambdaGbSecond,
    dynamodb:
      perDay(c.dynamo.readUnits) * p.dynamoReadUnit +
      perDay(c.dynamo.writeUnits) * p.dynamoWriteUnit,
    sqs: sqsRequests * p.sqsRequest,
    httpApi: perDay(c.hooks) * p.httpApiRequest,
    kms: perDay(c.kmsCalls) * p.kmsRequest,
  };
  const month = (x: number) => x * MONTH_DAYS;
  return {
    pollChecksPerUserDay: perDay(c.pollChecks),
    pollReadsPerUserDay: perDay(c.pollReads),
    calendarReadsPerUserDay: perDay(c.calendarReads),
    hooksPerUserDay: perDay(c.hooks),
    channelCallsPerUserDay: perDay(c.channelCalls),
    dynamoReadsPerUserDay: perDay(c.dynamo.reads),
    dynamoReadUnitsPerUserDay: perDay(c.dynamo.readUnits),
    dynamoWritesPerUserDay: perDay(c.dynamo.writes),
    dynamoWriteUnitsPerUserDay: perDay(c.dynamo.writeUnits),
    sqsRequestsPerUserDay: sqsRequests,
    lambdaInvocationsPerUserDay: invocations,
    gbSecondsPerUserDay: gbSeconds,
    kmsPerUserDay: perDay(c.kmsCalls),
    usdPerUserMonth: month(Object.values(usdPerDay).reduce((a, b) => a + b, 0)),
    usdBreakdown: {
      lambda: month(usdPerDay.lambda),
      dynamodb: month(usdPerDay.dynamodb),
      sqs: month(usdPerDay.sqs),
      httpApi: month(usdPerDay.httpApi),
      kms: month(usdPerDay.kms),
    },
  };
}

/** The DynamoDB counts of the side's functions, from the meter's rows by source. */
export function syncSideDynamo(bySource: Record<string, SourceCounts>): SourceCounts {
  const total: SourceCounts = { reads: 0, writes: 0, readUnits: 0, writeUnits: 0 };
  for (const [source, c] of Object.entries(bySource)) {
    if (!SYNC_SIDE_FUNCTIONS.some((fn) => source.startsWith(`${fn}:`))) continue;
    total.reads += c.reads;
    total.writes += c.writes;
    total.readUnits += c.readUnits;
    total.writeUnits += c.writeUnits;
  }
  return total;
}

/** The handler time of the side's invocations. */
export const syncSideHandlerMs = (invocations: readonly Invocation[]): number =>
  invocations
    .filter((i) => (SYNC_SIDE_FUNCTIONS as readonly string[]).includes(i.fn))
    .reduce((ms, i) => ms + i.ms, 0);

/** Sources named by the poll's sync messages, and the sync messages for other reasons. */
export function syncMessagesOf(invocations: readonly Invocation[]): {
  pollChecks: number;
  otherSyncMessages: number;
} {
  let pollChecks = 0;
  let otherSyncMessages = 0;
  for (const i of invocations) {
    if (i.fn !== "syncWorker") continue;
    const reasons = i.reasons ?? [];
    const polls = reasons.filter((r) => r === "poll").length;
    // A poll message names several sources; the meter counts them over the whole batch.
    if (polls > 0) pollChecks += i.sources ?? polls;
    otherSyncMessages += reasons.length - polls;
  }
  return { pollChecks, otherSyncMessages };
}
