import { QUEUE_BATCH_MAX } from "#lib/core/ports";
import {
  DAYS_PER_MONTH,
  IDLE_RECEIVES_PER_DAY,
  PLATFORM_LOG_BYTES,
  POLLS_PER_DAY,
  PRICES,
  TICKS_PER_DAY,
} from "./cost-model";
import { round } from "./stats";

// The cost bench's pricing, as one pure function of what the simulation measured and the
// deployment's size N. A user's month is a + b/N: `a` is each user's own work (their
// transitions, syncs, events, hooks and KMS requests), `b` what a deployment pays once whatever
// its size (the KMS key's monthly fee, Lambda's idle long polls of the two queues, the tick's
// and the poll's runs), shared by its N users. Evaluating it at several N from one run shows
// where the fixed charges stop mattering.

/** Issue 12's targets at the bench's deployment. */
export const ISSUE12_TARGETS = { usdPerUserMonth: 0.002, sqsRequestsPerUserDay: 20 } as const;

/** Deployment sizes the sizes table prices the run at (the run's own size is added). */
export const DEPLOYMENT_SIZES = [250, 1000, 2500, 10_000, 100_000] as const;

/** Billable use per user-day. */
export interface DayUse {
  /** Lambda invocations (SQS-batched). */
  invocations: number;
  gbSeconds: number;
  reads: number;
  readUnits: number;
  writeUnits: number;
  sqsRequests: number;
  httpApiRequests: number;
  kmsRequests: number;
  /** CloudWatch Logs bytes: here with Lambda's own lines, one set per invocation. */
  logBytes: number;
}

/** One run of a schedule (the tick or the poll) as the simulation measured it. */
export interface ScheduleRun {
  reads: number;
  readUnits: number;
  /** Billed GB-s of one run (its time at its function's memory). */
  gbSeconds: number;
  /** Bytes of its summary line at INFO (Lambda's own lines are added per invocation). */
  logBytes: number;
}

/**
 * The tick's runs that found transitions to send, as simulated. A deployment's tick sends what
 * it finds ten to a SendMessageBatch request, so its requests depend on how many it finds at
 * once: on the deployment's size, not only on each user's own transitions.
 */
export interface TickFinds {
  /** Each simulated tick run that found any: how many, among how many simulated users. */
  runs: Array<{ found: number; amongUsers: number }>;
  /** The simulated user-days the runs were found in. */
  userDays: number;
}

/** What the simulation measured, split into each user's own work and the schedules' runs. */
export interface MeasuredUse {
  /**
   * Per user-day, everything but the tick's and the poll's runs and the idle long polls.
   * `logBytes` is the handlers' lines only. Cold starts (module init GB-s, the KMS requests of
   * a cold instance) are in here as measured on the simulated users at the run's deployment.
   * `sqsRequests` leaves out the tick's transition sends when `tickFinds` prices them.
   */
  perUser: DayUse;
  /** The tick's transition sends, priced by deployment size (none when absent). */
  tickFinds?: TickFinds;
  /** An idle tick (the deployment's tick, 1,440 a day, finds nothing most minutes). */
  tickRun: ScheduleRun;
  /** A poll run on average (288 a day; each queries every shard of the poll index). */
  pollRun: ScheduleRun;
}

/** US$ per user-day by service. */
export interface UsdBreakdown {
  lambda: number;
  dynamodb: number;
  sqs: number;
  httpApi: number;
  kms: number;
  kmsKey: number;
  logs: number;
}

/** The measured use priced for a deployment of `users` users. */
export interface PricedUse {
  users: number;
  perUserDay: DayUse;
  usdPerUserDay: UsdBreakdown;
  usdPerUserMonth: number;
  /** Of it, the deployment's charges shared by its users (per user-month), by part. */
  deploymentPart: { kmsKey: number; idleReceives: number; scheduleRuns: number; total: number };
}

const ZERO_USE: DayUse = {
  invocations: 0,
  gbSeconds: 0,
  reads: 0,
  readUnits: 0,
  writeUnits: 0,
  sqsRequests: 0,
  httpApiRequests: 0,
  kmsRequests: 0,
  logBytes: 0,
};

/** What a deployment uses in a day whatever its size: the schedules' runs and the idle polls. */
export function deploymentDay(m: MeasuredUse): DayUse {
  const runs = (f: (r: ScheduleRun) => number) =>
    TICKS_PER_DAY * f(m.tickRun) + POLLS_PER_DAY * f(m.pollRun);
  return {
    ...ZERO_USE,
    invocations: TICKS_PER_DAY + POLLS_PER_DAY,
    gbSeconds: runs((r) => r.gbSeconds),
    reads: runs((r) => r.reads),
    readUnits: runs((r) => r.readUnits),
    sqsRequests: IDLE_RECEIVES_PER_DAY,
    logBytes: runs((r) => r.logBytes),
  };
}

/**
 * The tick's SendMessageBatch requests per user-day at `users` users. A simulated run that found
 * `found` transitions among `amongUsers` users stands for a deployment's run finding
 * found × users / amongUsers (its users share the meeting pattern): ceil(that / 10) requests,
 * shared by the deployment's users, a run standing for amongUsers of them. As N grows, a tenth
 * of a request per transition.
 */
export function tickSendRequests(t: TickFinds | undefined, users: number): number {
  if (t === undefined || t.userDays === 0) return 0;
  let requests = 0;
  for (const { found, amongUsers } of t.runs) {
    requests += Number.isFinite(users)
      ? Math.ceil((found * users) / amongUsers / QUEUE_BATCH_MAX) * (amongUsers / users)
      : found / QUEUE_BATCH_MAX;
  }
  return requests / t.userDays;
}

/** US$ of `use` per user-day, with `keyShare` of the KMS key's fee. */
function usdOf(use: DayUse, keyShare: number): UsdBreakdown {
  return {
    lambda: use.invocations * PRICES.lambdaRequest + use.gbSeconds * PRICES.lambdaGbSecond,
    dynamodb: use.readUnits * PRICES.dynamoReadUnit + use.writeUnits * PRICES.dynamoWriteUnit,
    sqs: use.sqsRequests * PRICES.sqsRequest,
    httpApi: use.httpApiRequests * PRICES.httpApiRequest,
    kms: use.kmsRequests * PRICES.kmsRequest,
    kmsKey: (keyShare * PRICES.kmsKeyMonth) / DAYS_PER_MONTH,
    logs: (use.logBytes / 1e9) * PRICES.logsIngestGb,
  };
}

const total = (usd: UsdBreakdown) => Object.values(usd).reduce((a, b) => a + b, 0);

/**
 * Prices the measured use for a deployment of `users` users: each user's own use plus a
 * `1 / users` share of the deployment's, Lambda's own log lines added per invocation. With
 * `users` = Infinity, the per-user floor (the deployment's charges shared by no one).
 */
export function priceAt(m: MeasuredUse, users: number): PricedUse {
  const shared = deploymentDay(m);
  const share = 1 / users;
  const handlerLogBytes = m.perUser.logBytes + shared.logBytes * share;
  const invocations = m.perUser.invocations + shared.invocations * share;
  const perUserDay: DayUse = {
    invocations,
    gbSeconds: m.perUser.gbSeconds + shared.gbSeconds * share,
    reads: m.perUser.reads + shared.reads * share,
    readUnits: m.perUser.readUnits + shared.readUnits * share,
    writeUnits: m.perUser.writeUnits,
    sqsRequests:
      m.perUser.sqsRequests + shared.sqsRequests * share + tickSendRequests(m.tickFinds, users),
    httpApiRequests: m.perUser.httpApiRequests,
    kmsRequests: m.perUser.kmsRequests,
    logBytes: handlerLogBytes + invocations * PLATFORM_LOG_BYTES,
  };
  const usdPerUserDay = usdOf(perUserDay, share);
  const month = (x: number) => x * DAYS_PER_MONTH;
  const idle = { ...ZERO_USE, sqsRequests: shared.sqsRequests * share };
  const runs: DayUse = {
    ...ZERO_USE,
    invocations: shared.invocations * share,
    gbSeconds: shared.gbSeconds * share,
    reads: shared.reads * share,
    readUnits: shared.readUnits * share,
    logBytes: (shared.logBytes + shared.invocations * PLATFORM_LOG_BYTES) * share,
  };
  const kmsKey = month(usdOf(ZERO_USE, share).kmsKey);
  const idleReceives = month(total(usdOf(idle, 0)));
  const scheduleRuns = month(total(usdOf(runs, 0)));
  return {
    users,
    perUserDay,
    usdPerUserDay,
    usdPerUserMonth: month(total(usdPerUserDay)),
    deploymentPart: {
      kmsKey,
      idleReceives,
      scheduleRuns,
      total: kmsKey + idleReceives + scheduleRuns,
    },
  };
}

/**
 * The smallest deployment at which `figure` is at most `target`. The figures are a + b/N (a: the
 * figure as N grows, b: what one deployment adds) but for the tick's sends, whose ten to a
 * request round up per tick run: so it is searched for, by halving, as a figure that falls as
 * N grows (exactly the quotient N = ceil(b / (target - a)) where the figure is a + b/N).
 * Null when the per-user work alone reaches the target (no deployment is large enough).
 */
export function smallestDeployment(
  m: MeasuredUse,
  figure: (p: PricedUse) => number,
  target: number,
): number | null {
  const meets = (n: number) => figure(priceAt(m, n)) <= target;
  if (figure(priceAt(m, Number.POSITIVE_INFINITY)) >= target) return null;
  if (meets(1)) return 1;
  let below = 1;
  let from = 2;
  while (!meets(from)) {
    below = from;
    from *= 2;
  }
  while (from - below > 1) {
    const mid = Math.floor((below + from) / 2);
    if (meets(mid)) from = mid;
    else below = mid;
  }
  return from;
}

/** The figures `--json` carries per deployment size, and the sizes table prints. */
export interface SizeRow {
  users: number;
  usdPerUserMonth: number;
  usdPerDeploymentPart: number;
  sqsRequestsPerUserDay: number;
  readsPerUserDay: number;
}

/** The sizes, the run's own among them, each priced from the same measured use. */
export function bySize(m: MeasuredUse, runUsers: number, sizes: readonly number[]): SizeRow[] {
  return [...new Set([...sizes, runUsers])]
    .sort((x, y) => x - y)
    .map((users) => {
      const p = priceAt(m, users);
      return {
        users,
        usdPerUserMonth: p.usdPerUserMonth,
        usdPerDeploymentPart: p.deploymentPart.total,
        sqsRequestsPerUserDay: p.perUserDay.sqsRequests,
        readsPerUserDay: p.perUserDay.reads,
      };
    });
}

/** The sizes figures the cost bench's result carries (rounded as printed). */
export interface ScaleFigures {
  /** The same run priced at each deployment size, the run's own among them. */
  byDeploymentSize: SizeRow[];
  /** The smallest deployment meeting issue 12's US$ and SQS targets (null: none does). */
  targetsMetFromUsers: { usd: number | null; sqs: number | null };
  /** The figures as N grows (b/N → 0): what each user's own work costs alone. */
  perUserFloor: { usdPerUserMonth: number; sqsRequestsPerUserDay: number; readsPerUserDay: number };
  /** At the run's deployment, the charges it pays before any user does anything, per user-month. */
  fixedChargesPerUserMonth: PricedUse["deploymentPart"];
}

const usd6 = (x: number) => round(x, 6);
const one = (x: number) => round(x, 1);

/** Prices the measured use at DEPLOYMENT_SIZES and `runUsers`, and solves for the targets. */
export function scaleFigures(m: MeasuredUse, runUsers: number): ScaleFigures {
  const floor = priceAt(m, Number.POSITIVE_INFINITY);
  const fixed = priceAt(m, runUsers).deploymentPart;
  return {
    byDeploymentSize: bySize(m, runUsers, DEPLOYMENT_SIZES).map((r) => ({
      users: r.users,
      usdPerUserMonth: usd6(r.usdPerUserMonth),
      usdPerDeploymentPart: usd6(r.usdPerDeploymentPart),
      sqsRequestsPerUserDay: one(r.sqsRequestsPerUserDay),
      readsPerUserDay: one(r.readsPerUserDay),
    })),
    targetsMetFromUsers: {
      usd: smallestDeployment(m, (p) => p.usdPerUserMonth, ISSUE12_TARGETS.usdPerUserMonth),
      sqs: smallestDeployment(
        m,
        (p) => p.perUserDay.sqsRequests,
        ISSUE12_TARGETS.sqsRequestsPerUserDay,
      ),
    },
    perUserFloor: {
      usdPerUserMonth: usd6(floor.usdPerUserMonth),
      sqsRequestsPerUserDay: one(floor.perUserDay.sqsRequests),
      readsPerUserDay: one(floor.perUserDay.reads),
    },
    fixedChargesPerUserMonth: {
      kmsKey: usd6(fixed.kmsKey),
      idleReceives: usd6(fixed.idleReceives),
      scheduleRuns: usd6(fixed.scheduleRuns),
      total: usd6(fixed.total),
    },
  };
}
