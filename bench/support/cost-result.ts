import type { SqsSource } from "./cost-model";
import type { PushFigures } from "./cost-push-table";
import type { ScaleFigures } from "./cost-scale";
import type { SourceCounts } from "./dynamo-meter";
import type { KmsTally } from "./kms-meter";

// What the cost bench returns (and `bench --json` prints as its `cost` figures).

export interface FunctionRow {
  fn: string;
  unbatched: number;
  batched: number;
  /** What drives the count, in words with the measured parts. */
  drivers: string;
}

/** The run's figures; with ScaleFigures, the same run priced at other deployment sizes. */
export interface CostResult extends ScaleFigures {
  users: number;
  days: number;
  workers: number;
  userDays: number;
  deploymentUsers: number;
  busyBlocksPerUserDay: number;
  profileSetsPerUserDay: number;
  profileGetsPerUserDay: number;
  /**
   * What the Home tab and the messages of issue 26 add: the transition worker's `notice` runs,
   * views.publish and chat.postMessage calls (under 1 on a quiet day: nobody opens the tab and no
   * calendar breaks).
   */
  healthCallsPerUserDay: number;
  setsPerBusyBlock: number;
  transitionsPerBusyBlock: number;
  /** Do Not Disturb calls per busy block, by method (DND is on for every simulated user). */
  dndCallsPerBusyBlock: Record<string, number>;
  readsPerUserDay: number;
  writesPerUserDay: number;
  readUnitsPerUserDay: number;
  writeUnitsPerUserDay: number;
  /** Of the write units, those of the global secondary indexes; entries written per index. */
  indexWriteUnitsPerUserDay: number;
  indexWritesPerUserDay: Record<string, number>;
  /**
   * DynamoDB reads, writes and units per user-day by function, command and item kind (the
   * simulated ticks and polls included as run, not at the deployment's share), largest first.
   */
  dynamoBySource: Array<{ source: string } & SourceCounts>;
  logBytesPerUserDay: number;
  /**
   * KMS requests as counted through the vault (bench/support/kms-meter.ts: each function
   * instance keeps what it opened), and by function.
   */
  kmsRequestsPerUserDay: number;
  /** The same without the cache: every seal and open the handlers asked for. */
  kmsRequestsUncachedPerUserDay: number;
  kmsByFunction: Record<string, KmsTally>;
  queueMessagesPerUserDay: number;
  sqsRequestsPerUserDay: number;
  functions: FunctionRow[];
  invocationsTotalPerUserDay: number;
  invocationsBatchedPerUserDay: number;
  /** Batched invocations if the sync queue's batch size were 10. */
  invocationsBatchedAtSyncBatch10: number;
  sqs: Record<"syncWorker" | "transitionWorker", SqsSource>;
  gbSecondsPerUserDay: number;
  coldStartsPerDeploymentDay: number;
  usdPerUserMonth: number;
  /** The same with REALISTIC_FETCH_MS of billed duration added to each feed fetch. */
  usdPerUserMonthRealisticFetch: number;
  usdBreakdown: Record<string, number>;
  poll: {
    runMs: number;
    invocationsPerUserDay: number;
    profileSetsPerUserDay: number;
    profileSetsEveryMinutePerUserDay: number;
    gbSecondsPerUserDay: number;
    usdPerUserMonth: number;
    usdPerUserMonthRealisticFetch: number;
  };
  /** The multi-tenant poller: every minute, TENANTS_PER_POLL users per invocation. */
  multiPoll: {
    invocationsPerUserDay: number;
    gbSecondsPerUserDay: number;
    usdPerUserMonth: number;
    usdPerUserMonthRealisticFetch: number;
  };
  fewerInvocations: number;
  /** A push-backed user beside the ICS ones: polls and dollars saved (absent with `push: false`). */
  push?: PushFigures;
  /** DynamoDB reads of an idle tick, and of a poll run on average (each queries every shard). */
  idleRunReads: number;
  pollRunReads: number;
  /** Real seconds: the slowest worker's simulation, and the whole benchmark. */
  simulationS: number;
  wallS: number;
}

/** The ICS user's whole month, as the push table sets it beside the push-backed user's. */
export const icsTotalsOf = (r: CostResult) => ({
  readsPerUserDay: r.readsPerUserDay,
  readUnitsPerUserDay: r.readUnitsPerUserDay,
  writesPerUserDay: r.writesPerUserDay,
  writeUnitsPerUserDay: r.writeUnitsPerUserDay,
  sqsRequestsPerUserDay: r.sqsRequestsPerUserDay,
  invocationsBatchedPerUserDay: r.invocationsBatchedPerUserDay,
  usdPerUserMonth: r.usdPerUserMonth,
});
