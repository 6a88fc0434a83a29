/**
 * The cost bench's push figures: the ICS users' calendar side beside the push-backed user's
 * (cost-sync-side.ts), the push-backed user's whole month (the ICS user's with that side
 * swapped), and the polls and dollars saved; as JSON (`cost.push` of `--json`) and as a table.
 */
import type { PushCostSample } from "./cost-push";
import {
  MONTH_DAYS,
  priceSyncSide,
  SYNC_SIDE_FUNCTIONS,
  type SyncSide,
  type SyncSideCounts,
  type SyncSideModel,
  syncMessagesOf,
  syncSideDynamo,
  syncSideHandlerMs,
} from "./cost-sync-side";
import { formatTable, round } from "./stats";

/** The ICS user's whole month, per user-day, as the cost table gives it. */
export interface IcsTotals {
  readsPerUserDay: number;
  readUnitsPerUserDay: number;
  writesPerUserDay: number;
  writeUnitsPerUserDay: number;
  sqsRequestsPerUserDay: number;
  invocationsBatchedPerUserDay: number;
  usdPerUserMonth: number;
}

/** `IcsTotals`' figures here are the push-backed user's whole month (the ICS user's, this side swapped). */
export interface PushFigures extends IcsTotals {
  provider: string;
  /** Simulated days of the push-backed user (a week at most), edits pushed, real seconds. */
  days: number;
  edits: number;
  simulationS: number;
  /** The calendar side per user-day: ICS sources on the 15-minute poll, and push-backed. */
  ics: SyncSide;
  push: SyncSide;
  /** ICS poll reads per push-backed poll read; US$ per user-month saved. */
  fewerPolls: number;
  usdSavedPerUserMonth: number;
  /** The push side's KMS requests per user-day, and what they are made of (pushKmsOf). */
  pushKms: PushKms;
  /** US$ per user-month saved were the push side's functions kept warm (`pushKms.warm`). */
  usdSavedPerUserMonthWarm: number;
}

/** The push-backed calendar side's KMS requests per user-day. */
export interface PushKms {
  /** As priced: `vault` plus `inheritedTokenInstances`. */
  total: number;
  /** Counted through the vault, one cache of opened values per function instance. */
  vault: number;
  /**
   * Instances that used an access token another had obtained (one App's cache in the run):
   * deployed, each refreshes it with one more Decrypt.
   */
  inheritedTokenInstances: number;
  /** Access-token refreshes: the requests there would be if each opened the refresh token. */
  tokenRefreshes: number;
  /** Seals and opens asked of the caches: the requests there would be without them. */
  uncached: number;
  /**
   * The requests had each function's one instance stayed warm (kms-meter.ts): a deployment's
   * ICS polls invoke the sync worker every few minutes, where this run of one user leaves it
   * idle for hours between safety-net reads.
   */
  warm: number;
}

/**
 * The push-backed calendar side's KMS requests over the run, on the ICS side's model: what the
 * sync worker and the hooks asked of their instance's cache that reached the vault, plus one
 * Decrypt for each instance that, deployed, would have refreshed an access token the run's
 * shared App already held.
 */
export function pushKmsOf(s: PushCostSample): PushKms {
  let vault = 0;
  let uncached = 0;
  let warm = 0;
  for (const fn of SYNC_SIDE_FUNCTIONS) {
    const k = s.kms.byFunction[fn];
    const w = s.kms.warmByFunction[fn];
    if (w !== undefined) warm += w.encrypt + w.decrypt;
    if (k === undefined) continue;
    vault += k.encrypt + k.decrypt;
    uncached += k.asked.encrypt + k.asked.decrypt;
  }
  const inherited = s.calls.inheritedTokenInstances;
  return {
    total: vault + inherited,
    vault,
    inheritedTokenInstances: inherited,
    tokenRefreshes: s.calls.tokenCalls,
    uncached,
    warm,
  };
}

/** The push-backed user's raw calendar-side counts. */
export function pushSideCounts(s: PushCostSample): SyncSideCounts {
  return {
    userDays: s.userDays,
    ...syncMessagesOf(s.invocations),
    calendarReads: s.calls.reads,
    pollReads: s.calls.readsBy.poll ?? 0,
    hooks: s.invocations.filter((i) => i.fn === "calendarHooks").length,
    channelCalls: s.calls.channelCalls,
    kmsCalls: pushKmsOf(s).total,
    handlerMs: syncSideHandlerMs(s.invocations),
    dynamo: syncSideDynamo(s.dynamo.bySource),
  };
}

const rounded = (side: SyncSide): SyncSide => {
  const out = Object.fromEntries(
    Object.entries(side).map(([k, v]) => [k, typeof v === "number" ? round(v, 3) : v]),
  ) as unknown as SyncSide;
  return {
    ...out,
    usdPerUserMonth: round(side.usdPerUserMonth, 6),
    usdBreakdown: Object.fromEntries(
      Object.entries(side.usdBreakdown).map(([k, v]) => [k, round(v, 6)]),
    ) as SyncSide["usdBreakdown"],
  };
};

export function pushFigures(
  icsCounts: SyncSideCounts,
  sample: PushCostSample,
  totals: IcsTotals,
  model: SyncSideModel,
): PushFigures {
  const ics = priceSyncSide(icsCounts, model);
  const push = priceSyncSide(pushSideCounts(sample), model);
  const swapped = (total: number, was: number, is: number) => round(total - was + is, 1);
  const usd = totals.usdPerUserMonth - ics.usdPerUserMonth + push.usdPerUserMonth;
  // With no safety-net read in the run, count one as if it had happened (a lower bound).
  const pushPollReads = Math.max(push.pollReadsPerUserDay, 1 / sample.userDays);
  const kms = pushKmsOf(sample);
  const kmsPerDay = (x: number) => round(x / sample.userDays, 3);
  return {
    provider: sample.provider,
    days: round(sample.userDays, 2),
    edits: sample.edits,
    simulationS: round(sample.wallS),
    ics: rounded(ics),
    push: rounded(push),
    readsPerUserDay: swapped(
      totals.readsPerUserDay,
      ics.dynamoReadsPerUserDay,
      push.dynamoReadsPerUserDay,
    ),
    readUnitsPerUserDay: swapped(
      totals.readUnitsPerUserDay,
      ics.dynamoReadUnitsPerUserDay,
      push.dynamoReadUnitsPerUserDay,
    ),
    writesPerUserDay: swapped(
      totals.writesPerUserDay,
      ics.dynamoWritesPerUserDay,
      push.dynamoWritesPerUserDay,
    ),
    writeUnitsPerUserDay: swapped(
      totals.writeUnitsPerUserDay,
      ics.dynamoWriteUnitsPerUserDay,
      push.dynamoWriteUnitsPerUserDay,
    ),
    sqsRequestsPerUserDay: swapped(
      totals.sqsRequestsPerUserDay,
      ics.sqsRequestsPerUserDay,
      push.sqsRequestsPerUserDay,
    ),
    invocationsBatchedPerUserDay: swapped(
      totals.invocationsBatchedPerUserDay,
      ics.lambdaInvocationsPerUserDay,
      push.lambdaInvocationsPerUserDay,
    ),
    usdPerUserMonth: round(usd, 5),
    fewerPolls: round(ics.pollReadsPerUserDay / pushPollReads, 1),
    usdSavedPerUserMonth: round(totals.usdPerUserMonth - usd, 5),
    pushKms: {
      total: kmsPerDay(kms.total),
      vault: kmsPerDay(kms.vault),
      inheritedTokenInstances: kmsPerDay(kms.inheritedTokenInstances),
      tokenRefreshes: kmsPerDay(kms.tokenRefreshes),
      uncached: kmsPerDay(kms.uncached),
      warm: kmsPerDay(kms.warm),
    },
    // Only KMS differs: the warm instance holds the access token an hour as the run's App does.
    usdSavedPerUserMonthWarm: round(
      totals.usdPerUserMonth -
        usd +
        ((kms.total - kms.warm) / sample.userDays) * model.prices.kmsRequest * MONTH_DAYS,
      5,
    ),
  };
}

const savedOrMore = (usd: number): string =>
  usd >= 0 ? `$${usd} saved` : `$${round(-usd, 5)} MORE`;

export function pushTable(p: PushFigures, totals: IcsTotals): string {
  const n = (x: number, digits = 2) => String(round(x, digits));
  const both = (label: string, ics: string, push: string) => [label, ics, push];
  const side = (f: (s: SyncSide) => number, digits = 2) => [
    n(f(p.ics), digits),
    n(f(p.push), digits),
  ];
  const rows: string[][] = [
    ["polls: poll checks that read the calendar", ...side((s) => s.pollReadsPerUserDay)],
    ["sync checks the poll sends (sources named)", ...side((s) => s.pollChecksPerUserDay)],
    ["calendar reads (feed fetches / API reads)", ...side((s) => s.calendarReadsPerUserDay)],
    ["pushes received (hook invocations)", ...side((s) => s.hooksPerUserDay)],
    ["channel calls (watch, renew, stop)", ...side((s) => s.channelCallsPerUserDay)],
    [
      "  DynamoDB reads (read units), calendar side",
      `${n(p.ics.dynamoReadsPerUserDay, 1)} (${n(p.ics.dynamoReadUnitsPerUserDay, 1)})`,
      `${n(p.push.dynamoReadsPerUserDay, 1)} (${n(p.push.dynamoReadUnitsPerUserDay, 1)})`,
    ],
    [
      "  DynamoDB writes (write units), calendar side",
      `${n(p.ics.dynamoWritesPerUserDay, 1)} (${n(p.ics.dynamoWriteUnitsPerUserDay, 1)})`,
      `${n(p.push.dynamoWritesPerUserDay, 1)} (${n(p.push.dynamoWriteUnitsPerUserDay, 1)})`,
    ],
    ["  SQS requests, calendar side", ...side((s) => s.sqsRequestsPerUserDay)],
    [
      "  Lambda invocations (batched), calendar side",
      ...side((s) => s.lambdaInvocationsPerUserDay),
    ],
    ["  KMS calls, calendar side", ...side((s) => s.kmsPerUserDay)],
    ["  US$ per user-month, calendar side", ...side((s) => s.usdPerUserMonth, 6)],
    both(
      "DynamoDB reads (read units), whole user",
      `${totals.readsPerUserDay} (${totals.readUnitsPerUserDay})`,
      `${p.readsPerUserDay} (${p.readUnitsPerUserDay})`,
    ),
    both(
      "DynamoDB writes (write units), whole user",
      `${totals.writesPerUserDay} (${totals.writeUnitsPerUserDay})`,
      `${p.writesPerUserDay} (${p.writeUnitsPerUserDay})`,
    ),
    both(
      "SQS requests, whole user",
      n(totals.sqsRequestsPerUserDay, 1),
      n(p.sqsRequestsPerUserDay, 1),
    ),
    both(
      "Lambda invocations (batched), whole user",
      n(totals.invocationsBatchedPerUserDay, 1),
      n(p.invocationsBatchedPerUserDay, 1),
    ),
    both("US$ per user-month, whole user", n(totals.usdPerUserMonth, 5), n(p.usdPerUserMonth, 5)),
  ];
  return [
    formatTable(
      `push-backed sources, per user-day: a connected ${p.provider === "google" ? "Google" : p.provider} calendar with a live push channel (safety-net poll every 6 h), the same meetings and edits, ${p.days} simulated days on the local stack with the ${p.provider} emulator over HTTP (${p.edits} edit${p.edits === 1 ? "" : "s"} pushed by the emulator, channel upkeep included)`,
      ["per user-day", "ICS (15-min poll)", `${p.provider}, push-backed`],
      rows,
    ),
    `push-backed: ${p.fewerPolls}× fewer polls, ${savedOrMore(p.usdSavedPerUserMonth)} per user-month (${n(p.ics.pollReadsPerUserDay)} → ${n(p.push.pollReadsPerUserDay)} poll reads a user-day; calendar side $${p.ics.usdPerUserMonth} → $${p.push.usdPerUserMonth}); with its sync worker kept warm by a deployment's polls, KMS ${n(p.pushKms.total)} → ${n(p.pushKms.warm)} a day: ${savedOrMore(p.usdSavedPerUserMonthWarm)}`,
    `model: the calendar side is the sync worker's and the calendar hooks' work (DynamoDB by function, handler time measured one message at a time), the sync queue's messages (poll messages of several sources, ten to a send, in batches), the hooks' HTTP requests and KMS calls (both the sync worker's and the hooks' as counted through the vault, each function instance keeping what it opened until its modelled cold start; push-backed: ${n(p.pushKms.vault)} a day so counted, plus ${n(p.pushKms.inheritedTokenInstances)} for instances that used an access token another had obtained, which deployed would refresh it; ${n(p.pushKms.tokenRefreshes)} access-token refreshes, ${n(p.pushKms.uncached)} without the caches); everything after a sync is the same for the same meetings, so the push-backed user's whole month is the ICS user's with this side swapped; the poll's own index query, shared by the deployment, is in neither (simulation ${p.simulationS} s in its own process)`,
  ].join("\n");
}
