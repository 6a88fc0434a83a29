import { fork } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { POLL_FETCH_CONCURRENCY, POLL_SOURCES_PER_MESSAGE } from "#lib/app/sync-coalescing";
import { expand } from "#lib/calendar/expand";
import { ManualClock } from "#lib/core/clock";
import { renderIcs } from "#lib/local/demo-feed";
import { startIcsServer } from "#lib/local/ics-server";
import type { PushCostSample } from "./support/cost-push";
import { type PushFigures, pushFigures, pushTable } from "./support/cost-push-table";
import { type CostSample, DAY, eventsFor, MONTH_START } from "./support/cost-sim";
import { syncSideDynamo, syncSideHandlerMs } from "./support/cost-sync-side";
import type { SourceCounts } from "./support/dynamo-meter";
import type { KmsTally } from "./support/kms-meter";
import { type Invocation, WARM_MS } from "./support/lambda-meter";
import { formatTable, quantile, round, sum } from "./support/stats";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** AWS list prices, us-east-1, on-demand, as of 2025 (US$). */
export const PRICES = {
  lambdaRequest: 0.2 / 1e6,
  /** arm64, as serverless.yml deploys. */
  lambdaGbSecond: 0.0000133334,
  dynamoReadUnit: 0.125 / 1e6,
  dynamoWriteUnit: 0.625 / 1e6,
  sqsRequest: 0.4 / 1e6,
  httpApiRequest: 1.0 / 1e6,
  kmsRequest: 0.03 / 1e4,
  /** A customer-managed KMS key (the token key), per month, whatever it is used for. */
  kmsKeyMonth: 1.0,
  /** CloudWatch Logs ingestion per GB (storage after the first month not counted). */
  logsIngestGb: 0.5,
} as const;
/**
 * Billed duration of one feed fetch from a real calendar host (DNS, TLS, the transfer): the
 * loopback fetch measured here is near zero, so each figure is also given with this added to
 * every feed fetch, ours and the baselines'.
 */
export const REALISTIC_FETCH_MS = 200;
/** Lambda's own START, END and REPORT lines in CloudWatch Logs, per invocation (bytes). */
const PLATFORM_LOG_BYTES = 330;
/** Users one invocation of the multi-tenant poller serves (as hudl/CalendarToSlack does). */
const TENANTS_PER_POLL = 10;
/** serverless.yml's provider memorySize. */
const MEMORY_GB = 0.5;
/** EventBridge runs the tick every minute and the poll every 5 minutes, once per deployment. */
const TICKS_PER_DAY = 1440;
const POLLS_PER_DAY = 288;
/**
 * Lambda's SQS event source long-polls each queue with at least 5 pollers, 20 s waits: about
 * 5 × 3 × 1,440 receives a day per queue even when it is empty. Two queues, per deployment.
 */
const IDLE_RECEIVES_PER_DAY = 2 * 5 * 3 * 1440;

export interface CostOptions {
  users: number;
  days: number;
  /**
   * Users of the deployment (1,000): they share the tick, the poll, the queues' batches and
   * idle receives, and the KMS key's monthly fee.
   */
  deploymentUsers?: number;
  /** Cold module-init time per function (from the bundle benchmark); 300 ms when unknown. */
  initMs?: Record<string, number>;
  /** Worker processes the users are split over (default: one per core, at most `users`). */
  workers?: number;
  /** Also run a push-backed user (cost-push.ts) beside them (default true). */
  push?: boolean;
}

/** An SQS event source as serverless.yml declares it. */
interface SqsSource {
  batchSize: number;
  windowS: number;
}

/** Reads the SQS event sources' batch size and batching window from serverless.yml. */
function sqsSources(): Record<"syncWorker" | "transitionWorker", SqsSource> {
  const doc = parse(readFileSync(path.join(repoRoot, "serverless.yml"), "utf8"), {
    logLevel: "silent",
  }) as { functions?: Record<string, { events?: Array<{ sqs?: Record<string, unknown> }> }> };
  const of = (fn: string): SqsSource => {
    const sqs = doc.functions?.[fn]?.events?.find((e) => e.sqs)?.sqs ?? {};
    const n = (v: unknown, fallback: number) => (typeof v === "number" ? v : fallback);
    return { batchSize: n(sqs.batchSize, 10), windowS: n(sqs.maximumBatchingWindow, 0) };
  };
  return { syncWorker: of("syncWorker"), transitionWorker: of("transitionWorker") };
}

export interface FunctionRow {
  fn: string;
  unbatched: number;
  batched: number;
  /** What drives the count, in words with the measured parts. */
  drivers: string;
}

export interface CostResult {
  users: number;
  days: number;
  workers: number;
  userDays: number;
  deploymentUsers: number;
  busyBlocksPerUserDay: number;
  profileSetsPerUserDay: number;
  profileGetsPerUserDay: number;
  setsPerBusyBlock: number;
  transitionsPerBusyBlock: number;
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
  idleRunReads: number;
  /** Real seconds: the slowest worker's simulation, and the whole benchmark. */
  simulationS: number;
  wallS: number;
}

/** Runs one worker process (ICS users `indices`, or the push-backed user) with its counts. */
function runWorker(indices: number[], days: number): Promise<CostSample>;
function runWorker(indices: "push", days: number): Promise<PushCostSample>;
function runWorker(indices: number[] | "push", days: number): Promise<CostSample | PushCostSample> {
  return new Promise((resolve, reject) => {
    const child = fork(
      path.join(repoRoot, "bench/support/cost-worker.ts"),
      [JSON.stringify(indices === "push" ? { push: true, days } : { indices, days })],
      {
        cwd: repoRoot,
        execArgv: ["--import", "tsx"],
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      },
    );
    let result:
      | { ok: true; sample: CostSample | PushCostSample }
      | { ok: false; error: string }
      | undefined;
    child.on("message", (m) => {
      result = m as typeof result;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (result?.ok) resolve(result.sample);
      else reject(new Error(`cost worker failed (exit ${code}): ${result?.error ?? "no result"}`));
    });
  });
}

/** One poll-bot run: fetch the whole feed and expand today's events, median of 15 (warm). */
async function pollWorkMs(ics: string, at: number): Promise<number> {
  const server = await startIcsServer({ clock: new ManualClock(at), feeds: { "/cal.ics": ics } });
  try {
    const times: number[] = [];
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now();
      const text = await (await fetch(server.feedUrl("/cal.ics"))).text();
      await expand(text, { from: at - DAY, to: at, userZone: "UTC" });
      times.push(performance.now() - t0);
    }
    return quantile(times, 0.5);
  } finally {
    await server.close();
  }
}

const countBy = (values: string[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
};

/** Cold starts: a function's first invocation, and any after it sat idle longer than WARM_MS. */
function coldStarts(invocations: Invocation[]): Record<string, number> {
  const byFn = new Map<string, number[]>();
  for (const i of invocations) {
    const ats = byFn.get(i.fn);
    if (ats) ats.push(i.at);
    else byFn.set(i.fn, [i.at]);
  }
  const out: Record<string, number> = {};
  for (const [fn, ats] of byFn) {
    ats.sort((a, b) => a - b);
    out[fn] = ats.filter((at, k) => k === 0 || at - (ats[k - 1] as number) > WARM_MS).length;
  }
  return out;
}

/**
 * A month of realistic calendars (bench/support/cost-sim.ts) for `users` users on the local
 * stack on a simulated clock, split over worker processes; every call, read, write, message and
 * invocation counted, then priced per user-month for a deployment of `deploymentUsers` users.
 */
export async function runCostBench(options: CostOptions): Promise<CostResult> {
  const t0 = performance.now();
  const { users: n, days } = options;
  const deployment = options.deploymentUsers ?? 1000;
  const workers = Math.max(1, Math.min(n, options.workers ?? availableParallelism()));
  const groups = Array.from({ length: workers }, (_, w) =>
    Array.from({ length: n }, (_, i) => i).filter((i) => i % workers === w),
  );
  // The push-backed user runs in its own process beside the ICS users' (mostly waiting on its
  // stack's settling, so it adds little to the wall time).
  const pushRun = options.push === false ? undefined : runWorker("push", days);
  const samples = await Promise.all(groups.map((g) => runWorker(g, days)));
  const pushSample = await pushRun;
  const simulationS = Math.max(...samples.map((s) => s.wallS));

  const U = sum(samples.map((s) => s.userDays));
  const perUserDay = (x: number) => x / U;
  const invocations = samples.flatMap((s) => s.invocations);
  const of = (fn: string) => invocations.filter((i) => i.fn === fn);
  const messages = (fn: string) => sum(of(fn).map((i) => i.messages ?? 1));
  const reasons = (fn: string) => countBy(of(fn).flatMap((i) => i.reasons ?? []));
  const sqs = sqsSources();

  // Per user-day, unbatched (one message per invocation) and as a deployment batches them.
  const syncReasons = reasons("syncWorker");
  const pollSyncs = syncReasons.poll ?? 0;
  const otherSyncs = messages("syncWorker") - pollSyncs;
  // Poll checks: the sources the poll's messages named. Here a poll run finds a worker's few
  // users; a deployment's run finds hundreds and fills each message with
  // POLL_SOURCES_PER_MESSAGE sources, ten messages to a SendMessageBatch request.
  const pollChecks = sum(
    of("syncWorker")
      .filter((i) => i.reasons?.[0] === "poll")
      .map((i) => i.sources ?? i.messages ?? 1),
  );
  const pollMessages = pollChecks / POLL_SOURCES_PER_MESSAGE;
  const transitionReasons = reasons("transitionWorker");
  const sets = samples
    .flatMap((s) => s.serviceCalls)
    .filter((c) => c.method === "users.profile.set");
  const gets = samples
    .flatMap((s) => s.serviceCalls)
    .filter((c) => c.method === "users.profile.get");
  const okSets = sets.filter((c) => c.outcome === "ok").length;
  const expiryClears = sum(samples.map((s) => s.expiryClears));
  const pushes = sum(samples.map((s) => s.pushes));
  const blocks = sum(samples.map((s) => s.blocks));
  const fmt = (r: Record<string, number>) =>
    Object.entries(r)
      .map(([k, v]) => `${k} ${round(perUserDay(v), 2)}`)
      .join(", ");
  const functions: FunctionRow[] = [
    {
      fn: "tick",
      unbatched: TICKS_PER_DAY / deployment,
      batched: TICKS_PER_DAY / deployment,
      drivers: `1,440 a day per deployment, shared by ${deployment} users`,
    },
    {
      fn: "poll",
      unbatched: POLLS_PER_DAY / deployment,
      batched: POLLS_PER_DAY / deployment,
      drivers: `288 a day per deployment, shared by ${deployment} users`,
    },
    {
      fn: "syncWorker",
      unbatched: perUserDay(pollMessages + otherSyncs),
      batched: perUserDay(pollMessages / sqs.syncWorker.batchSize + otherSyncs),
      drivers: `poll checks ${round(perUserDay(pollChecks), 2)}, ${POLL_SOURCES_PER_MESSAGE} to a message, messages in batches of ${sqs.syncWorker.batchSize}; other messages alone (by reason: ${fmt({ ...syncReasons, poll: 0 })})`,
    },
    {
      fn: "transitionWorker",
      unbatched: perUserDay(messages("transitionWorker")),
      batched: perUserDay(messages("transitionWorker")),
      drivers: `messages by reason: ${fmt(transitionReasons)}; ${round(messages("transitionWorker") / blocks, 2)} per busy block; each alone (due at its own second)`,
    },
    {
      fn: "serviceEvents",
      unbatched: perUserDay(of("serviceEvents").length),
      batched: perUserDay(of("serviceEvents").length),
      drivers: `the service's user_change for each accepted set (${round(perUserDay(okSets), 2)}) and each expiry clear (${round(perUserDay(expiryClears), 2)}); HTTP, one each`,
    },
    {
      fn: "calendarHooks",
      unbatched: perUserDay(of("calendarHooks").length),
      batched: perUserDay(of("calendarHooks").length),
      drivers: `calendar pushes (${round(perUserDay(pushes), 2)} edits); HTTP, one each`,
    },
  ];
  const unbatchedTotal = sum(functions.map((f) => f.unbatched));
  const batchedTotal = sum(functions.map((f) => f.batched));
  const batchedAt10 =
    batchedTotal - perUserDay(pollMessages / sqs.syncWorker.batchSize - pollMessages / 10);
  const sqsBatches = sum(functions.filter((f) => f.fn.endsWith("Worker")).map((f) => f.batched));

  // DynamoDB: what the simulation measured, minus its own ticks and polls at an idle run's
  // cost, plus the deployment's share of its ticks and polls at that cost.
  const scheduleRuns = of("tick").length + of("poll").length;
  const idleReads = sum(samples.map((s) => s.idleRun.reads)) / samples.length;
  const idleReadUnits = sum(samples.map((s) => s.idleRun.readUnits)) / samples.length;
  const fixedRuns = (TICKS_PER_DAY + POLLS_PER_DAY) / deployment;
  const reads =
    perUserDay(sum(samples.map((s) => s.dynamo.reads)) - scheduleRuns * idleReads) +
    fixedRuns * idleReads;
  const readUnits =
    perUserDay(sum(samples.map((s) => s.dynamo.readUnits)) - scheduleRuns * idleReadUnits) +
    fixedRuns * idleReadUnits;
  const writes = perUserDay(sum(samples.map((s) => s.dynamo.writes)));
  const writeUnits = perUserDay(sum(samples.map((s) => s.dynamo.writeUnits)));
  const indexWriteUnits = perUserDay(sum(samples.map((s) => s.dynamo.indexWriteUnits)));
  const indexWrites: Record<string, number> = {};
  for (const s of samples) {
    for (const [index, k] of Object.entries(s.dynamo.indexWrites)) {
      indexWrites[index] = (indexWrites[index] ?? 0) + k;
    }
  }
  const bySource = new Map<string, SourceCounts>();
  for (const s of samples) {
    for (const [source, c] of Object.entries(s.dynamo.bySource)) {
      const row = bySource.get(source) ?? { reads: 0, writes: 0, readUnits: 0, writeUnits: 0 };
      row.reads += c.reads;
      row.writes += c.writes;
      row.readUnits += c.readUnits;
      row.writeUnits += c.writeUnits;
      bySource.set(source, row);
    }
  }
  const dynamoBySource = [...bySource]
    .map(([source, c]) => ({
      source,
      reads: round(perUserDay(c.reads), 2),
      writes: round(perUserDay(c.writes), 2),
      readUnits: round(perUserDay(c.readUnits), 2),
      writeUnits: round(perUserDay(c.writeUnits), 2),
    }))
    .sort(
      (a, b) =>
        b.readUnits * PRICES.dynamoReadUnit +
        b.writeUnits * PRICES.dynamoWriteUnit -
        (a.readUnits * PRICES.dynamoReadUnit + a.writeUnits * PRICES.dynamoWriteUnit),
    );
  const queueMessages = perUserDay(
    sum(samples.map((s) => s.queueMessages.transition + s.queueMessages.sync)) -
      pollSyncs +
      pollMessages,
  );
  // A send per message (the poll's ten to a request), a receive and a delete per batch, plus
  // the idle long polls.
  const sendRequests = queueMessages - perUserDay(pollMessages) + perUserDay(pollMessages / 10);
  const sqsRequests = sendRequests + 2 * sqsBatches + IDLE_RECEIVES_PER_DAY / deployment;

  // GB-seconds: handler time measured here (one message at a time), the deployment's share of
  // the ticks and polls at their median, and module init at each cold start of the deployment.
  const median = (fn: string) =>
    quantile(
      of(fn).map((i) => i.ms),
      0.5,
    ) || 0;
  const handlerMs =
    perUserDay(
      sum(invocations.filter((i) => i.fn !== "tick" && i.fn !== "poll").map((i) => i.ms)),
    ) +
    (TICKS_PER_DAY * median("tick") + POLLS_PER_DAY * median("poll")) / deployment;
  // The tick and the poll run every minute or five for the whole deployment: always warm.
  const colds = coldStarts(invocations.filter((i) => i.fn !== "tick" && i.fn !== "poll"));
  const coldMsPerDay =
    sum(Object.entries(colds).map(([fn, k]) => k * (options.initMs?.[fn] ?? 300))) / days;
  const gbSeconds = ((handlerMs + coldMsPerDay / deployment) / 1000) * MEMORY_GB;

  // CloudWatch Logs: the handlers' lines as logged here at INFO, the tick's and the poll's
  // summary line once a run per deployment, and Lambda's own three lines per invocation.
  const scheduleLines = sum(samples.map((s) => s.scheduleLogLines.lines));
  const scheduleLineBytes = sum(samples.map((s) => s.scheduleLogLines.bytes)) / scheduleLines || 0;
  const logBytes =
    perUserDay(sum(samples.map((s) => s.logBytes))) +
    fixedRuns * scheduleLineBytes +
    batchedTotal * PLATFORM_LOG_BYTES;

  // KMS: the requests counted through the vault, as each function's instances would make them.
  const kmsByFunction: Record<string, KmsTally> = {};
  for (const s of samples) {
    for (const [fn, k] of Object.entries(s.kms.byFunction)) {
      const row = kmsByFunction[fn] ?? {
        encrypt: 0,
        decrypt: 0,
        asked: { encrypt: 0, decrypt: 0 },
      };
      row.encrypt += k.encrypt;
      row.decrypt += k.decrypt;
      row.asked.encrypt += k.asked.encrypt;
      row.asked.decrypt += k.asked.decrypt;
      kmsByFunction[fn] = row;
    }
  }
  const kmsRequests = perUserDay(sum(samples.map((s) => s.kms.encrypt + s.kms.decrypt)));
  const kmsUncached = perUserDay(
    sum(samples.map((s) => s.kms.asked.encrypt + s.kms.asked.decrypt)),
  );

  const month = 30;
  const usd = {
    lambda: batchedTotal * PRICES.lambdaRequest + gbSeconds * PRICES.lambdaGbSecond,
    dynamodb: readUnits * PRICES.dynamoReadUnit + writeUnits * PRICES.dynamoWriteUnit,
    sqs: sqsRequests * PRICES.sqsRequest,
    httpApi:
      perUserDay(of("serviceEvents").length + of("calendarHooks").length) * PRICES.httpApiRequest,
    kms: kmsRequests * PRICES.kmsRequest,
    kmsKey: PRICES.kmsKeyMonth / month / deployment,
    logs: (logBytes / 1e9) * PRICES.logsIngestGb,
  };
  const usdPerUserMonth = sum(Object.values(usd)) * month;
  // Every check fetches its feed once (or is skipped before fetching: an upper bound); a poll
  // message fetches POLL_FETCH_CONCURRENCY feeds at a time, so each is billed that fraction.
  const fetchGbSeconds =
    perUserDay(otherSyncs + pollChecks / POLL_FETCH_CONCURRENCY) *
    (REALISTIC_FETCH_MS / 1000) *
    MEMORY_GB;
  const usdPerUserMonthRealisticFetch =
    usdPerUserMonth + fetchGbSeconds * PRICES.lambdaGbSecond * month;

  // The poll-every-minute baseline, per user: one invocation a minute that fetches the feed and
  // expands today (timed here on user 0's feed, warm), sets the status when the block it is in
  // changes and clears it when the block ends; it remembers what it set in instance memory, so
  // no database, no queue, no profile reads.
  const end = MONTH_START + days * DAY;
  const pollMs = await pollWorkMs(renderIcs(eventsFor(0, days, end), MONTH_START), end);
  const pollGbSeconds = 1440 * (pollMs / 1000) * MEMORY_GB;
  const busyMinutes = sum(samples.map((s) => s.busyMinutes));
  /** A poller's US$ per user-month: `runs` invocations a user-day, each fetch `fetchMs` long. */
  const pollerUsd = (runs: number, fetchMs: number) =>
    (runs * PRICES.lambdaRequest +
      1440 * ((fetchMs / 1000) * MEMORY_GB) * PRICES.lambdaGbSecond +
      ((runs * PLATFORM_LOG_BYTES) / 1e9) * PRICES.logsIngestGb) *
    month;
  const multiRuns = 1440 / TENANTS_PER_POLL;

  const result: CostResult = {
    users: n,
    days,
    workers,
    userDays: round(U, 2),
    deploymentUsers: deployment,
    busyBlocksPerUserDay: round(perUserDay(blocks), 2),
    profileSetsPerUserDay: round(perUserDay(sets.length), 2),
    profileGetsPerUserDay: round(perUserDay(gets.length), 2),
    setsPerBusyBlock: round(okSets / blocks, 2),
    transitionsPerBusyBlock: round(messages("transitionWorker") / blocks, 2),
    readsPerUserDay: round(reads, 1),
    writesPerUserDay: round(writes, 1),
    readUnitsPerUserDay: round(readUnits, 1),
    writeUnitsPerUserDay: round(writeUnits, 1),
    indexWriteUnitsPerUserDay: round(indexWriteUnits, 1),
    indexWritesPerUserDay: Object.fromEntries(
      Object.entries(indexWrites).map(([k, v]) => [k, round(perUserDay(v), 1)]),
    ),
    dynamoBySource,
    logBytesPerUserDay: Math.round(logBytes),
    kmsRequestsPerUserDay: round(kmsRequests, 2),
    kmsRequestsUncachedPerUserDay: round(kmsUncached, 2),
    kmsByFunction: Object.fromEntries(
      Object.entries(kmsByFunction).map(([fn, k]) => [
        fn,
        {
          encrypt: round(perUserDay(k.encrypt), 2),
          decrypt: round(perUserDay(k.decrypt), 2),
          asked: {
            encrypt: round(perUserDay(k.asked.encrypt), 2),
            decrypt: round(perUserDay(k.asked.decrypt), 2),
          },
        },
      ]),
    ),
    queueMessagesPerUserDay: round(queueMessages, 1),
    sqsRequestsPerUserDay: round(sqsRequests, 1),
    functions: functions.map((f) => ({
      ...f,
      unbatched: round(f.unbatched, 2),
      batched: round(f.batched, 2),
    })),
    invocationsTotalPerUserDay: round(unbatchedTotal, 1),
    invocationsBatchedPerUserDay: round(batchedTotal, 1),
    invocationsBatchedAtSyncBatch10: round(batchedAt10, 1),
    sqs,
    gbSecondsPerUserDay: round(gbSeconds, 3),
    coldStartsPerDeploymentDay: round(sum(Object.values(colds)) / days, 1),
    usdPerUserMonth: round(usdPerUserMonth, 5),
    usdPerUserMonthRealisticFetch: round(usdPerUserMonthRealisticFetch, 5),
    usdBreakdown: Object.fromEntries(Object.entries(usd).map(([k, v]) => [k, round(v * month, 6)])),
    poll: {
      runMs: round(pollMs),
      invocationsPerUserDay: 1440,
      profileSetsPerUserDay: round(perUserDay(2 * blocks), 2),
      profileSetsEveryMinutePerUserDay: round(perUserDay(busyMinutes), 1),
      gbSecondsPerUserDay: round(pollGbSeconds, 2),
      usdPerUserMonth: round(pollerUsd(1440, pollMs), 5),
      usdPerUserMonthRealisticFetch: round(pollerUsd(1440, pollMs + REALISTIC_FETCH_MS), 5),
    },
    multiPoll: {
      invocationsPerUserDay: multiRuns,
      gbSecondsPerUserDay: round(pollGbSeconds, 2),
      usdPerUserMonth: round(pollerUsd(multiRuns, pollMs), 5),
      usdPerUserMonthRealisticFetch: round(pollerUsd(multiRuns, pollMs + REALISTIC_FETCH_MS), 5),
    },
    fewerInvocations: round(1440 / batchedTotal, 1),
    idleRunReads: round(idleReads, 1),
    simulationS: round(simulationS),
    wallS: round((performance.now() - t0) / 1000),
  };
  if (pushSample === undefined) return result;
  // The ICS users' calendar side (cost-sync-side.ts), to set the push-backed user's beside.
  const push = pushFigures(
    {
      userDays: U,
      pollChecks,
      otherSyncMessages: otherSyncs,
      // Every check fetches the feed (a conditional GET), the poll's and the others'.
      calendarReads: pollChecks + otherSyncs,
      pollReads: pollChecks,
      hooks: of("calendarHooks").length,
      channelCalls: 0,
      kmsCalls: pushes,
      handlerMs: syncSideHandlerMs(invocations),
      dynamo: syncSideDynamo(Object.fromEntries(bySource)),
    },
    pushSample,
    icsTotalsOf(result),
    {
      prices: PRICES,
      memoryGb: MEMORY_GB,
      syncBatchSize: sqs.syncWorker.batchSize,
      sourcesPerMessage: POLL_SOURCES_PER_MESSAGE,
    },
  );
  return { ...result, push };
}

/** The ICS user's whole month, as the push table sets it beside the push-backed user's. */
const icsTotalsOf = (r: CostResult) => ({
  readsPerUserDay: r.readsPerUserDay,
  readUnitsPerUserDay: r.readUnitsPerUserDay,
  writesPerUserDay: r.writesPerUserDay,
  writeUnitsPerUserDay: r.writeUnitsPerUserDay,
  sqsRequestsPerUserDay: r.sqsRequestsPerUserDay,
  invocationsBatchedPerUserDay: r.invocationsBatchedPerUserDay,
  usdPerUserMonth: r.usdPerUserMonth,
});

export function costTable(r: CostResult): string {
  const both = (x: string) => [x, x];
  const rows: string[][] = [
    [
      "users.profile.set calls",
      String(r.profileSetsPerUserDay),
      ...both(String(r.poll.profileSetsPerUserDay)),
    ],
    [
      "  per busy block (incl. explicit clears)",
      String(r.setsPerBusyBlock),
      ...both("2 (set + clear)"),
    ],
    ["users.profile.get calls (read before write)", String(r.profileGetsPerUserDay), ...both("0")],
    [
      "DynamoDB reads (read units)",
      `${r.readsPerUserDay} (${r.readUnitsPerUserDay})`,
      ...both("0"),
    ],
    [
      "DynamoDB writes (write units, of them indexes')",
      `${r.writesPerUserDay} (${r.writeUnitsPerUserDay}, ${r.indexWriteUnitsPerUserDay})`,
      ...both("0"),
    ],
    [
      "queue messages (SQS requests)",
      `${r.queueMessagesPerUserDay} (${r.sqsRequestsPerUserDay})`,
      ...both("0"),
    ],
    [
      "KMS requests (kept opened per instance)",
      `${r.kmsRequestsPerUserDay} (${Object.entries(r.kmsByFunction)
        .filter(([, k]) => k.encrypt + k.decrypt > 0)
        .map(([fn, k]) => `${fn} ${round(k.decrypt + k.encrypt, 2)}`)
        .join(", ")}; ${r.kmsRequestsUncachedPerUserDay} without the cache)`,
      ...both("0"),
    ],
    [
      "Lambda invocations, one per message",
      String(r.invocationsTotalPerUserDay),
      "1440",
      String(r.multiPoll.invocationsPerUserDay),
    ],
    [
      "Lambda invocations, SQS-batched",
      String(r.invocationsBatchedPerUserDay),
      "1440",
      String(r.multiPoll.invocationsPerUserDay),
    ],
    [
      "Lambda GB-seconds",
      String(r.gbSecondsPerUserDay),
      ...both(`${r.poll.gbSecondsPerUserDay} (${r.poll.runMs} ms a fetch)`),
    ],
    [
      "CloudWatch Logs bytes",
      String(r.logBytesPerUserDay),
      String(1440 * PLATFORM_LOG_BYTES),
      String(r.multiPoll.invocationsPerUserDay * PLATFORM_LOG_BYTES),
    ],
    [
      "US$ per user-month",
      String(r.usdPerUserMonth),
      String(r.poll.usdPerUserMonth),
      String(r.multiPoll.usdPerUserMonth),
    ],
    [
      `  with ${REALISTIC_FETCH_MS} ms billed per feed fetch`,
      String(r.usdPerUserMonthRealisticFetch),
      String(r.poll.usdPerUserMonthRealisticFetch),
      String(r.multiPoll.usdPerUserMonthRealisticFetch),
    ],
  ];
  const total = r.invocationsBatchedPerUserDay;
  const byFn = formatTable(
    "Lambda invocations per user-day by function",
    ["function", "one per message", "batched", "share", "what drives them"],
    r.functions.map((f) => [
      f.fn,
      String(f.unbatched),
      String(f.batched),
      `${Math.round((f.batched / total) * 100)}%`,
      f.drivers,
    ]),
  );
  const dynamo = formatTable(
    "DynamoDB per user-day by function, command and item (simulated ticks and polls as run), costliest first",
    ["source", "reads", "read units", "writes", "write units"],
    r.dynamoBySource
      .slice(0, 40)
      .map((d) => [
        d.source,
        String(d.reads),
        String(d.readUnits),
        String(d.writes),
        String(d.writeUnits),
      ]),
  );
  const top = [...r.functions].sort((a, b) => b.batched - a.batched).slice(0, 3);
  const usd = Object.entries(r.usdBreakdown)
    .map(([k, v]) => `${k} $${v}`)
    .join(", ");
  const goal = r.fewerInvocations >= 50 ? "met" : "NOT met";
  return [
    formatTable(
      `calls and cost per user-day: ${r.users} users × ${r.days} days in ${r.workers} processes (${r.busyBlocksPerUserDay} busy blocks per user-day), local stack on a simulated clock; deployment of ${r.deploymentUsers} users`,
      [
        "per user-day",
        "statuspilot",
        "poll every minute",
        `poll every minute, ${TENANTS_PER_POLL} users a run`,
      ],
      rows,
    ),
    byFn,
    dynamo,
    `Lambda invocations: ${r.fewerInvocations}× fewer than polling (goal ≥ 50×: ${goal}); most are ${top.map((f) => `${f.fn} ${f.batched}`).join(", ")}; with the sync queue's batch size at 10: ${r.invocationsBatchedAtSyncBatch10} (${round(1440 / r.invocationsBatchedAtSyncBatch10, 1)}× fewer)`,
    `sets per busy block ${r.setsPerBusyBlock} (goal ≤ 1); transition messages per busy block ${r.transitionsPerBusyBlock}; a poll bot that sets every minute while busy makes ${r.poll.profileSetsEveryMinutePerUserDay} sets a day`,
    `statuspilot US$ per user-month by service: ${usd}; index entries written per user-day: ${Object.entries(
      r.indexWritesPerUserDay,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(", ")}`,
    `model: SQS event sources from serverless.yml (sync batch ${r.sqs.syncWorker.batchSize}, transition batch ${r.sqs.transitionWorker.batchSize}, batching window ${r.sqs.syncWorker.windowS} s / ${r.sqs.transitionWorker.windowS} s); a poll's sync messages for the deployment arrive together and fill whole batches; transitions, pushes and events are each alone; tick and poll once per deployment (${r.idleRunReads} reads a run); SQS: a send per message, a receive and a delete per batch, ${IDLE_RECEIVES_PER_DAY} empty long-poll receives a day per deployment`,
    `GB-s: handler time measured here one message at a time (a loaded machine overstates it), plus module init at each cold start (${r.coldStartsPerDeploymentDay} a day, counted on the simulated users' invocations: an instance idle 15 min is gone, tick and poll stay warm; a larger deployment has fewer gaps, scale-out not modelled); the poll bots' runs are warm and keep what they set in memory (no database, no profile reads); logs: the handlers' lines at INFO plus Lambda's START/END/REPORT (${PLATFORM_LOG_BYTES} bytes) per invocation, the bots' platform lines only`,
    "prices (us-east-1 list, on-demand): Lambda arm64 $0.20/M requests + $0.0000133334/GB-s (512 MB); DynamoDB $0.125/M read units, $0.625/M write units; SQS $0.40/M requests; HTTP API $1.00/M; KMS $0.03/10k (the Decrypt and Encrypt requests counted through the vault, each function instance keeping what it opened for 6 h, addresses 24 h, emptied at each cold start) and $1 a month for the key, shared by the deployment; CloudWatch Logs $0.50/GB ingested",
    `(simulation ${r.simulationS} s in the slowest process)`,
    ...(r.push ? ["", pushTable(r.push, icsTotalsOf(r))] : []),
  ].join("\n");
}
