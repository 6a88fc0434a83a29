import { availableParallelism } from "node:os";
import { POLL_FETCH_CONCURRENCY, POLL_SOURCES_PER_MESSAGE } from "#lib/app/sync/coalescing";
import { pollBaselines } from "./support/cost-baselines";
import { runWorker } from "./support/cost-fork";
import {
  DAYS_PER_MONTH,
  POLLS_PER_DAY,
  PRICES,
  REALISTIC_FETCH_MS,
  sqsSources,
  TICKS_PER_DAY,
} from "./support/cost-model";
import { pushFigures } from "./support/cost-push-table";
import { type CostResult, type FunctionRow, icsTotalsOf } from "./support/cost-result";
import { type MeasuredUse, priceAt, scaleFigures, type TickFinds } from "./support/cost-scale";
import { syncSideDynamo, syncSideHandlerMs } from "./support/cost-sync-side";
import {
  coldStarts,
  countBy,
  dynamoBySourceOf,
  indexWritesOf,
  kmsByFunctionOf,
} from "./support/cost-tally";
import { functionMemoryMb } from "./support/lambda-function";
import { quantile, round, sum } from "./support/stats";

// The cost bench: runs the simulation's worker processes and prices their counts. The model's
// prices and constants are in support/cost-model.ts, the result's type in cost-result.ts, the
// baselines in cost-baselines.ts and the printed tables in cost-table.ts.

export type { CostResult, FunctionRow } from "./support/cost-result";
export { costTable } from "./support/cost-table";

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
  const dndCalls = countBy(
    samples
      .flatMap((s) => s.serviceCalls)
      .flatMap((c) => (c.method.startsWith("dnd.") ? [c.method] : [])),
  );
  // What telling people (issue 26) adds: its worker runs, and the bot's Home views and DMs.
  const healthCalls =
    (transitionReasons.notice ?? 0) +
    samples
      .flatMap((s) => s.serviceCalls)
      .filter((c) => c.method === "views.publish" || c.method === "chat.postMessage").length;
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

  // DynamoDB: what the simulation measured, minus its own ticks' and polls' reads as run; the
  // pricing (support/cost-scale.ts) puts back the deployment's runs: a tick at an idle tick's
  // cost (measured before anything was due), a poll at the simulated polls' average (every run
  // queries each shard, whatever it finds).
  const bySource = dynamoBySourceOf(samples);
  const readsOf = (fn: string) => {
    let reads = 0;
    let readUnits = 0;
    for (const [source, c] of bySource) {
      if (!source.startsWith(`${fn}:`)) continue;
      reads += c.reads;
      readUnits += c.readUnits;
    }
    return { reads, readUnits };
  };
  const tickRuns = readsOf("tick");
  const pollRuns = readsOf("poll");
  const pollsRun = Math.max(1, of("poll").length);
  const writes = perUserDay(sum(samples.map((s) => s.dynamo.writes)));
  const indexWriteUnits = perUserDay(sum(samples.map((s) => s.dynamo.indexWriteUnits)));
  const indexWrites = indexWritesOf(samples);
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
  // A send per message (the poll's ten to a request), a receive and a delete per batch (the
  // idle long polls are the deployment's). The tick's transitions are priced apart, by size
  // (support/cost-scale.ts): a deployment's tick sends what it finds ten to a request; a
  // writer's transition (saveStatus) stays a request of its own.
  const tickFinds: TickFinds = {
    runs: samples.flatMap((s) => s.tickFinds.map((found) => ({ found, amongUsers: s.users }))),
    userDays: U,
  };
  const tickTransitions = perUserDay(sum(samples.flatMap((s) => s.tickFinds)));
  const sendRequests =
    queueMessages - tickTransitions - perUserDay(pollMessages) + perUserDay(pollMessages / 10);

  // GB-seconds: handler time measured here (one message at a time), module init at each cold
  // start of the deployment, and the ticks and polls at their median.
  const median = (fn: string) =>
    quantile(
      of(fn).map((i) => i.ms),
      0.5,
    ) || 0;
  // Each function at the memory serverless.yml gives it (GB-s are billed per function).
  const memoryGbOf = (fn: string) => functionMemoryMb(fn) / 1024;
  const handlerGbMs = perUserDay(
    sum(
      invocations
        .filter((i) => i.fn !== "tick" && i.fn !== "poll")
        .map((i) => i.ms * memoryGbOf(i.fn)),
    ),
  );
  // The tick and the poll run every minute or five for the whole deployment: always warm. The
  // cold starts are counted on the simulated users and held per user as at the run's deployment.
  const colds = coldStarts(invocations.filter((i) => i.fn !== "tick" && i.fn !== "poll"));
  const coldGbMsPerDay =
    sum(
      Object.entries(colds).map(([fn, k]) => k * (options.initMs?.[fn] ?? 300) * memoryGbOf(fn)),
    ) / days;

  // CloudWatch Logs: the handlers' lines as logged here at INFO; the tick's and the poll's
  // summary line once a run per deployment and Lambda's own lines are the pricing's.
  const scheduleLines = sum(samples.map((s) => s.scheduleLogLines.lines));
  const scheduleLineBytes = sum(samples.map((s) => s.scheduleLogLines.bytes)) / scheduleLines || 0;

  // KMS: the requests counted through the vault, as each function's instances would make them.
  const kmsByFunction = kmsByFunctionOf(samples);
  const kmsRequests = perUserDay(sum(samples.map((s) => s.kms.encrypt + s.kms.decrypt)));
  const kmsUncached = perUserDay(
    sum(samples.map((s) => s.kms.asked.encrypt + s.kms.asked.decrypt)),
  );

  // Each user's own use, and one run of each schedule: priced for this deployment and others.
  const measured: MeasuredUse = {
    perUser: {
      invocations: sum(
        functions.filter((f) => f.fn !== "tick" && f.fn !== "poll").map((f) => f.batched),
      ),
      gbSeconds: (handlerGbMs + coldGbMsPerDay / deployment) / 1000,
      reads: perUserDay(sum(samples.map((s) => s.dynamo.reads)) - tickRuns.reads - pollRuns.reads),
      readUnits: perUserDay(
        sum(samples.map((s) => s.dynamo.readUnits)) - tickRuns.readUnits - pollRuns.readUnits,
      ),
      writeUnits: perUserDay(sum(samples.map((s) => s.dynamo.writeUnits))),
      sqsRequests: sendRequests + 2 * sqsBatches,
      httpApiRequests: perUserDay(of("serviceEvents").length + of("calendarHooks").length),
      kmsRequests,
      logBytes: perUserDay(sum(samples.map((s) => s.logBytes))),
    },
    tickFinds,
    tickRun: {
      reads: sum(samples.map((s) => s.idleRun.reads)) / samples.length,
      readUnits: sum(samples.map((s) => s.idleRun.readUnits)) / samples.length,
      gbSeconds: (median("tick") * memoryGbOf("tick")) / 1000,
      logBytes: scheduleLineBytes,
    },
    pollRun: {
      reads: pollRuns.reads / pollsRun,
      readUnits: pollRuns.readUnits / pollsRun,
      gbSeconds: (median("poll") * memoryGbOf("poll")) / 1000,
      logBytes: scheduleLineBytes,
    },
  };
  const priced = priceAt(measured, deployment);
  const { reads, readUnits, writeUnits, sqsRequests, gbSeconds, logBytes } = priced.perUserDay;
  const usd = priced.usdPerUserDay;
  const usdPerUserMonth = priced.usdPerUserMonth;
  const month = DAYS_PER_MONTH;
  // Every check fetches its feed once (or is skipped before fetching: an upper bound); a poll
  // message fetches POLL_FETCH_CONCURRENCY feeds at a time, so each is billed that fraction.
  const fetchGbSeconds =
    perUserDay(otherSyncs + pollChecks / POLL_FETCH_CONCURRENCY) *
    (REALISTIC_FETCH_MS / 1000) *
    memoryGbOf("syncWorker");
  const usdPerUserMonthRealisticFetch =
    usdPerUserMonth + fetchGbSeconds * PRICES.lambdaGbSecond * month;

  // The baselines: a bot polling each user's feed every minute, and a multi-tenant poller.
  const { poll, multiPoll } = await pollBaselines({
    days,
    profileSetsPerUserDay: perUserDay(2 * blocks),
    busyMinutesPerUserDay: perUserDay(sum(samples.map((s) => s.busyMinutes))),
  });

  const result: CostResult = {
    users: n,
    days,
    workers,
    userDays: round(U, 2),
    deploymentUsers: deployment,
    busyBlocksPerUserDay: round(perUserDay(blocks), 2),
    profileSetsPerUserDay: round(perUserDay(sets.length), 2),
    profileGetsPerUserDay: round(perUserDay(gets.length), 2),
    healthCallsPerUserDay: round(perUserDay(healthCalls), 2),
    setsPerBusyBlock: round(okSets / blocks, 2),
    transitionsPerBusyBlock: round(messages("transitionWorker") / blocks, 2),
    dndCallsPerBusyBlock: Object.fromEntries(
      Object.entries(dndCalls).map(([method, count]) => [method, round(count / blocks, 2)]),
    ),
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
    poll,
    multiPoll,
    fewerInvocations: round(1440 / batchedTotal, 1),
    idleRunReads: round(measured.tickRun.reads, 1),
    pollRunReads: round(measured.pollRun.reads, 1),
    ...scaleFigures(measured, deployment),
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
      // As counted through the vault for the sync worker and the hooks (no push opens a secret).
      kmsCalls: sum(
        ["syncWorker", "calendarHooks"].map((fn) => {
          const k = kmsByFunction[fn];
          return k === undefined ? 0 : k.encrypt + k.decrypt;
        }),
      ),
      handlerMs: syncSideHandlerMs(invocations),
      dynamo: syncSideDynamo(Object.fromEntries(bySource)),
    },
    pushSample,
    icsTotalsOf(result),
    {
      prices: PRICES,
      memoryGb: memoryGbOf("syncWorker"),
      syncBatchSize: sqs.syncWorker.batchSize,
      sourcesPerMessage: POLL_SOURCES_PER_MESSAGE,
    },
  );
  return { ...result, push };
}
