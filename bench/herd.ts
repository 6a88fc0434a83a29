import { performance } from "node:perf_hooks";
import type { CallRecord } from "#emulator/server";
import { repoRoot } from "#infra/build";
import { type DemoEvent, renderIcs } from "#lib/local/demo-feed";
import { profiled, splitCpu } from "./support/cpu-attribution";
import { functionCodeOf, functionMemoryMb } from "./support/lambda-function";
import { AWS_SQS_SCALING, lambdaCpuShare, modelCompletions } from "./support/sqs-lambda-model";
import { type BenchUser, startBenchStack } from "./support/stack";
import { formatTable, quantile, round } from "./support/stats";
import {
  AWS_SQS_SEND_BATCH_MS,
  AWS_SQS_SEND_MS,
  type TickSendModel,
  tickSendModel,
} from "./support/tick-send-model";
import { BENCH_ADMIN, benchUserId } from "./support/workspace";

const MINUTE = 60_000;
/** A Monday; the herd's meetings all start at 09:00:00 UTC. */
export const HERD_START = Date.parse("2026-03-02T09:00:00Z");
/** The stack starts 10 minutes before, 400 ms off the second, as a real schedule would. */
const STACK_START = HERD_START - 10 * MINUTE + 400;

/**
 * Assumed latencies on AWS for the modelled herd: a `users.profile.*` call from the Lambda's
 * region to the chat service, and a DynamoDB call in the region.
 */
export const AWS_SERVICE_CALL_MS = 150;
export const AWS_DYNAMO_CALL_MS = 8;
/** Share of transition messages the herd's queue delivers twice (the soak's rate). */
const DUPLICATE_RATE = 0.01;
/** Issue 12's targets: the own-token herd's modelled p99, and the admin-token herd's end. */
export const HERD_P99_TARGET_S = 4;
export const ADMIN_HERD_TARGET_S = 600;
/** The transition worker's module init when the bundle bench did not measure it. */
const DEFAULT_COLD_START_MS = 150;

export interface HerdOptions {
  users: number;
  /** One admin token for every user instead of a token per user. */
  adminToken?: boolean;
  /** Every n-th user is out of office from 09:00 instead of in a meeting (0: none). */
  oooEvery?: number;
  /** The transition worker's module init (ms), as the bundle bench measured it. */
  coldStartMs?: number;
}

export interface HerdResult {
  users: number;
  token: "per-user" | "admin";
  oooUsers: number;
  /** Simulated seconds from 09:00:00 until the last status was set. */
  allSetAfterS: number;
  latenessP50S: number;
  latenessP99S: number;
  latenessMaxS: number;
  /**
   * End to end: the simulated lateness plus the real time from the instant's tasks starting to
   * the emulator recording the set (handlers, DynamoDB and HTTP on this machine, 50 at once).
   */
  endToEndP50S: number;
  endToEndP99S: number;
  endToEndMaxS: number;
  /**
   * Modelled on AWS (bench/support/sqs-lambda-model.ts): each user's message visible at its
   * scheduled instant, SQS's Lambda scale-out, cold starts, and one message's time
   * (`modelMessageMs`): this process's CPU time per message plus the assumed call latencies.
   */
  modelledAwsP50S: number;
  modelledAwsP99S: number;
  modelledAwsMaxS: number;
  modelMessageMs: number;
  /**
   * Of a modelled message: this process's CPU ms per transition invocation; the share of it
   * spent in the transition worker's own code (not dynalite's, not the emulator's: a CPU
   * profile of the run, bench/support/cpu-attribution.ts); that handler CPU; the same on the
   * function's share of a vCPU (`modelVcpuShare`, from its memory); and its service and
   * DynamoDB calls.
   */
  modelProcessCpuMs: number;
  modelHandlerCpuShare: number;
  modelCpuMs: number;
  modelVcpuShare: number;
  modelLambdaCpuMs: number;
  modelServiceCalls: number;
  modelDynamoCalls: number;
  /** Lambda instances the model started (each a cold start). */
  modelColdStarts: number;
  /** users.profile.set calls the emulator received, per user. */
  callsPerUser: number;
  ratelimited: number;
  /** Every user's status was set to the meeting or out-of-office status. */
  allSet: boolean;
  /** Statuses set per simulated minute after 09:00 (the admin token's budget at work). */
  setsPerMinute: number[];
  /** Out-of-office users whose status was set in the first minute, of all OOO users. */
  oooInFirstMinute: number;
  /** Share of the first minute's 30 sets that went to out-of-office users. */
  oooShareOfFirstMinute: number;
  transitionInvocations: number;
  /** Users not set at the herd's first instant (the admin token's budget made them wait). */
  waitingUsers: number;
  /** Retry messages sent to the transition queue (each waiting user's once, at its slot). */
  retriesQueued: number;
  /** Transition messages the queue delivered twice, as SQS standard may. */
  duplicatesDelivered: number;
  handlerP50Ms: number;
  handlerP99Ms: number;
  /**
   * The tick's sends for the herd (its run at 08:59:00.4 enqueues every user's transition), as
   * counted on the queue and modelled on AWS (bench/support/tick-send-model.ts).
   */
  tickSends: TickSendModel;
  /** Real seconds the herd phase took on this machine (all handlers in one process). */
  wallS: number;
}

function herdUser(i: number, ooo: boolean): BenchUser {
  const user = benchUserId(i);
  const event: DemoEvent = ooo
    ? {
        uid: `ooo-${user}@bench`,
        summary: "Out of office",
        start: HERD_START,
        end: HERD_START + 8 * 60 * MINUTE,
        busyStatus: "OOF",
      }
    : {
        uid: `standup-${user}@bench`,
        summary: "Stand-up",
        start: HERD_START,
        end: HERD_START + 30 * MINUTE,
        busyStatus: "BUSY",
      };
  return { user, tz: "UTC", ics: renderIcs([event], STACK_START) };
}

/**
 * The 09:00 herd: every user has an event starting at the same second. Runs the local stack on
 * a simulated clock, with the emulator's rate limits on, and reads every set from its call log.
 */
export async function runHerd(options: HerdOptions): Promise<HerdResult> {
  const oooEvery = options.oooEvery ?? 0;
  const isOoo = (i: number) => oooEvery > 0 && i % oooEvery === 0;
  const users = Array.from({ length: options.users }, (_, i) => herdUser(i, isOoo(i)));
  const workerCode = await functionCodeOf("transitionWorker");
  const oooIds = new Set(users.filter((_, i) => isOoo(i)).map((u) => u.user));
  // Real time at which each simulated instant started, and at which each call was recorded.
  const instantStartedAt = new Map<number, number>();
  const recordedAt = new Map<number, number>();
  const bench = await startBenchStack({
    start: STACK_START,
    users,
    // An instant can come round again (tasks scheduled for "now"); its first start counts.
    onInstant: (at) => {
      if (!instantStartedAt.has(at)) instantStartedAt.set(at, performance.now());
    },
    onServiceCall: (call) => recordedAt.set(call.seq, performance.now()),
    ...(options.adminToken ? { adminToken: true } : {}),
    // One admin token: a batch of 10 at a time, as one SQS batch is handled in order.
    concurrency: options.adminToken ? 10 : 50,
    // SQS standard delivers some messages twice: a waiting user is still queued once.
    transitionDuplicateRate: DUPLICATE_RATE,
  });
  // Retries queued (sent, not delivered), to show each waiting user is queued once.
  let retriesQueued = 0;
  const transitionQueue = bench.queues.transition;
  const send = transitionQueue.send.bind(transitionQueue);
  transitionQueue.send = (message, opts) => {
    if (message.reason === "retry") retriesQueued++;
    return send(message, opts);
  };
  // The tick's batch requests and the transitions they carry, until the herd's tick is done.
  const tickSent = { requests: 0, messages: 0 };
  const sendBatch = transitionQueue.sendBatch.bind(transitionQueue);
  transitionQueue.sendBatch = (entries) => {
    tickSent.requests++;
    tickSent.messages += entries.length;
    return sendBatch(entries);
  };
  try {
    // Up to a minute before: the tick at 08:59:00.4 enqueues every transition.
    await bench.advanceTo(HERD_START - MINUTE / 2);
    const tickSends = tickSendModel(tickSent.messages, tickSent.requests);
    bench.resetMeters();
    retriesQueued = 0;
    const duplicated0 = transitionQueue.stats().duplicated;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    // The shared budget lets one token set 30 users a minute and 2 s (spec 8.1's 30 per rolling
    // minute, with a margin), so about users/30 minutes; give it room to finish.
    const budgetMinutes = options.adminToken ? Math.ceil(options.users / 30) + 3 : 2;
    const { profile } = await profiled(async () => {
      for (let m = 0; m < budgetMinutes; m++) {
        await bench.advanceTo(HERD_START + (m + 1) * MINUTE);
        const done = new Set(okSets(bench.profileSets()).map((c) => c.user ?? c.caller));
        if (done.size >= options.users) break;
      }
    });
    const wallS = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    // CPU time, not wall time: a machine busy with other work slows the wall clock only.
    const cpuS = (cpu.user + cpu.system) / 1e6;
    const meters = bench.meters();
    const calls = meters.profileSets;
    const ok = okSets(calls);
    const firstSetOf = new Map<string, CallRecord>();
    for (const c of ok) {
      const who = c.user ?? c.caller ?? "";
      if (who !== "" && who !== BENCH_ADMIN && !firstSetOf.has(who)) firstSetOf.set(who, c);
    }
    const lateness = [...firstSetOf.values()].map((c) => (c.at - HERD_START) / 1000);
    const firstInstant = Math.min(...[...firstSetOf.values()].map((c) => c.at));
    const waitingUsers = [...firstSetOf.values()].filter((c) => c.at > firstInstant).length;
    const endToEnd = [...firstSetOf.values()].map((c) => {
      const real = (recordedAt.get(c.seq) ?? 0) - (instantStartedAt.get(c.at) ?? 0);
      return (c.at - HERD_START + real) / 1000;
    });
    const cpuSplit = splitCpu(profile, workerCode, repoRoot);
    const model = awsModelOf(
      options,
      [...firstSetOf.values()],
      meters,
      cpuS,
      cpuSplit.functionShare,
    );
    const profiles = bench.emulator.state().profiles;
    const allSet = users.every((u) => (profiles[u.user]?.status_text ?? "") !== "");
    const perMinute: number[] = [];
    for (const c of firstSetOf.values()) {
      const m = Math.floor((c.at - HERD_START) / MINUTE);
      perMinute[m] = (perMinute[m] ?? 0) + 1;
    }
    const firstMinute = [...firstSetOf.entries()].filter(([, c]) => c.at < HERD_START + MINUTE);
    const oooFirstMinute = firstMinute.filter(([u]) => oooIds.has(u)).length;
    const transition = meters.invocations.filter((i) => i.fn === "transitionWorker");
    return {
      users: options.users,
      token: options.adminToken ? "admin" : "per-user",
      oooUsers: oooIds.size,
      allSetAfterS: round(Math.max(0, ...lateness), 3),
      latenessP50S: round(quantile(lateness, 0.5), 3),
      latenessP99S: round(quantile(lateness, 0.99), 3),
      latenessMaxS: round(Math.max(0, ...lateness), 3),
      endToEndP50S: round(quantile(endToEnd, 0.5), 2),
      endToEndP99S: round(quantile(endToEnd, 0.99), 2),
      endToEndMaxS: round(Math.max(0, ...endToEnd), 2),
      ...model,
      callsPerUser: round(calls.length / options.users, 3),
      ratelimited: calls.filter((c) => c.outcome === "ratelimited").length,
      allSet,
      setsPerMinute: Array.from(perMinute, (n) => n ?? 0),
      oooInFirstMinute: oooFirstMinute,
      oooShareOfFirstMinute:
        firstMinute.length === 0 ? 0 : round(oooFirstMinute / firstMinute.length, 2),
      transitionInvocations: transition.length,
      waitingUsers,
      retriesQueued,
      duplicatesDelivered: transitionQueue.stats().duplicated - duplicated0,
      handlerP50Ms: round(
        quantile(
          transition.map((i) => i.ms),
          0.5,
        ),
      ),
      handlerP99Ms: round(
        quantile(
          transition.map((i) => i.ms),
          0.99,
        ),
      ),
      tickSends: {
        ...tickSends,
        batchedS: round(tickSends.batchedS, 2),
        sequentialS: round(tickSends.sequentialS, 1),
      },
      wallS: round(wallS),
    };
  } finally {
    await bench.close();
  }
}

/**
 * The herd as AWS would run it: each user's message visible at its scheduled instant (the
 * simulated time of its set), handled as SQS's Lambda scaling allows. One message's time is
 * the transition worker's CPU time per invocation (this process's, `handlerShare` of it spent
 * in the worker's own code), on the function's share of a vCPU, plus its service and DynamoDB
 * calls at the assumed latencies.
 */
function awsModelOf(
  options: HerdOptions,
  sets: CallRecord[],
  meters: ReturnType<Awaited<ReturnType<typeof startBenchStack>>["meters"]>,
  cpuS: number,
  handlerShare: number,
): Pick<
  HerdResult,
  | "modelledAwsP50S"
  | "modelledAwsP99S"
  | "modelledAwsMaxS"
  | "modelMessageMs"
  | "modelProcessCpuMs"
  | "modelHandlerCpuShare"
  | "modelCpuMs"
  | "modelVcpuShare"
  | "modelLambdaCpuMs"
  | "modelServiceCalls"
  | "modelDynamoCalls"
  | "modelColdStarts"
> {
  const invocations = Math.max(
    1,
    meters.invocations.filter((i) => i.fn === "transitionWorker").length,
  );
  const processCpuMs = (cpuS * 1000) / invocations;
  const cpuMs = processCpuMs * handlerShare;
  // An invocation runs on the function's share of a vCPU; its module init does not: AWS gives an
  // on-demand function's init phase a full vCPU (up to 10 s), so the bundle bench's figure stands.
  const vcpuShare = lambdaCpuShare(functionMemoryMb("transitionWorker"));
  const lambdaCpuMs = cpuMs / vcpuShare;
  const serviceCalls = meters.serviceCalls.length / invocations;
  const dynamoCalls = (meters.dynamo.reads + meters.dynamo.writes) / invocations;
  const messageMs =
    lambdaCpuMs + serviceCalls * AWS_SERVICE_CALL_MS + dynamoCalls * AWS_DYNAMO_CALL_MS;
  const visibleAt = sets.map((c) => c.at - HERD_START);
  const coldStartMs = options.coldStartMs ?? DEFAULT_COLD_START_MS;
  const { done, instances } = modelCompletions(visibleAt, {
    ...AWS_SQS_SCALING,
    coldStartMs,
    messageMs,
    messageCpuMs: lambdaCpuMs,
  });
  const seconds = done.map((ms) => ms / 1000);
  return {
    modelledAwsP50S: round(quantile(seconds, 0.5), 2),
    modelledAwsP99S: round(quantile(seconds, 0.99), 2),
    modelledAwsMaxS: round(Math.max(0, ...seconds), 2),
    modelMessageMs: round(messageMs, 0),
    modelProcessCpuMs: round(processCpuMs, 1),
    modelHandlerCpuShare: round(handlerShare, 2),
    modelCpuMs: round(cpuMs, 1),
    modelVcpuShare: round(vcpuShare, 3),
    modelLambdaCpuMs: round(lambdaCpuMs, 0),
    modelServiceCalls: round(serviceCalls, 2),
    modelDynamoCalls: round(dynamoCalls, 2),
    modelColdStarts: instances,
  };
}

const okSets = (calls: CallRecord[]) => calls.filter((c) => c.outcome === "ok");

export function herdTable(results: HerdResult[]): string {
  const rows = results.map((r) => [
    `${r.users} users, ${r.token} token${r.oooUsers > 0 ? ` (${r.oooUsers} OOO)` : ""}`,
    `${r.allSetAfterS} s`,
    `${r.latenessP50S} / ${r.latenessP99S} / ${r.latenessMaxS} s`,
    `${r.endToEndP50S} / ${r.endToEndP99S} / ${r.endToEndMaxS} s`,
    String(r.callsPerUser),
    String(r.ratelimited),
    r.allSet ? "yes" : "NO",
    `${r.modelledAwsP50S} / ${r.modelledAwsP99S} / ${r.modelledAwsMaxS} s`,
    `${r.handlerP50Ms} / ${r.handlerP99Ms} ms`,
    `${r.wallS} s`,
  ]);
  const lines = [
    formatTable(
      "09:00 herd: every user's event starts at 09:00:00; local stack, emulator rate limits on, simulated clock",
      [
        "run",
        "all set after",
        "scheduled p50/p99/max",
        "end to end p50/p99/max",
        "calls/user",
        "ratelimited",
        "all set",
        "modelled AWS p50/p99/max",
        "handler p50/p99",
        "wall",
      ],
      rows,
    ),
  ];
  lines.push(
    "scheduled: the emulator's simulated time of each user's first set minus 09:00:00 (the clock stands still while handlers run); end to end: that plus the real time from the instant's queue messages becoming visible to the emulator recording the set, with every handler, dynalite and the emulator sharing one Node process (50 messages at once), so it is an upper bound for handler time and ignores Lambda's scale-out",
  );
  for (const r of results.filter((x) => x.token === "per-user")) {
    lines.push(
      `the tick's sends at the herd (${r.users} own-token users): ${r.tickSends.messages} transitions in ${r.tickSends.requests} SendMessageBatch requests, ${r.tickSends.inFlight} in flight at ${AWS_SQS_SEND_BATCH_MS} ms each: modelled ${r.tickSends.batchedS} s on AWS, against ${r.tickSends.sequentialS} s as one SendMessage at ${AWS_SQS_SEND_MS} ms after another (the tick's timeout: ${r.tickSends.timeoutS} s)`,
    );
    lines.push(
      `modelled AWS (${r.users} own-token users): SQS→Lambda scaling from ${AWS_SQS_SCALING.startConcurrency} concurrent batches of ${AWS_SQS_SCALING.batchSize}, up to ${AWS_SQS_SCALING.addPerMinute} more a minute, ${r.modelColdStarts} cold starts, ${r.modelMessageMs} ms a message (CPU: this process's ${r.modelProcessCpuMs} ms per message, ${Math.round(r.modelHandlerCpuShare * 100)}% of it in the transition worker's own code, ${r.modelCpuMs} ms, on the function's ${r.modelVcpuShare} of a vCPU: ${r.modelLambdaCpuMs} ms; plus ${r.modelServiceCalls} service calls at ${AWS_SERVICE_CALL_MS} ms and ${r.modelDynamoCalls} DynamoDB calls at ${AWS_DYNAMO_CALL_MS} ms); p99 ${r.modelledAwsP99S} s (issue 12's target ≤ ${HERD_P99_TARGET_S} s: ${r.modelledAwsP99S <= HERD_P99_TARGET_S ? "met" : "NOT met"})`,
    );
  }
  for (const r of results.filter((x) => x.token === "admin")) {
    lines.push(
      `admin token, statuses set per minute after 09:00: ${r.setsPerMinute.join(", ")}` +
        ` (spec 8.1: at most 30 users in any rolling minute; the shared budget books 30 slots a rolling minute, a minute and 2 s apart); all set after ${r.allSetAfterS} s (issue 12's target ≤ ${ADMIN_HERD_TARGET_S} s: ${r.allSet && r.allSetAfterS <= ADMIN_HERD_TARGET_S ? "met" : "NOT met"}); out-of-office users set in the first minute:` +
        ` ${r.oooInFirstMinute} of ${r.oooUsers} (${Math.round(r.oooShareOfFirstMinute * 100)}% of` +
        ` that minute's sets, ${Math.round((r.oooUsers / r.users) * 100)}% of users);` +
        ` transition invocations per user: ${round(r.transitionInvocations / r.users, 2)};` +
        ` retries queued: ${r.retriesQueued} for ${r.waitingUsers} waiting users, on a queue that delivered ${r.duplicatesDelivered} messages twice`,
    );
  }
  return lines.join("\n");
}
