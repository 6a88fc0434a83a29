/**
 * The benchmarks' in-process stack on a simulated clock (the soak may import it read-only).
 *
 *   const b = await startBenchStack({ start, users: [{ user, tz, ics }], adminToken?, hooks? });
 *   b.setFeed(user, icsText); await b.push(user);  // edit a calendar, then its signed push hook
 *   await b.advanceTo(instant);                    // run ticks, queues, events, expiry on the way
 *   b.profileSets();                               // users.profile.set calls, from the emulator
 *   b.meters();  b.resetMeters();                  // DynamoDB, Lambda, queue counts
 *   await b.close();
 *
 * It is lib/local's stack assembled from the same parts (dynalite, the emulator with its rate
 * limits, the handlers behind the local API Gateway, the minute tick, the 5-minute poll, the
 * delay queues, the composition root) on a ManualClock, plus a loopback ICS server and meters.
 * The handlers run through devstack's Lambda runtime (each function's timeout, no work after
 * it returns), each made by its factory over the stack's App. Unlike `startStack`, tasks due at
 * the same simulated instant run concurrently (like Lambda consuming a queue), so a 1,000-user
 * herd takes seconds. Every call between the parts is real HTTP on 127.0.0.1.
 */
import { createHmac, randomBytes } from "node:crypto";
import type { ScheduledEvent, SQSEvent } from "aws-lambda";
import { type App, composeLocalApp, frozenAfterReturn } from "#devstack/app";
import { startLocalDynamo } from "#devstack/dynamo";
import { startGateway } from "#devstack/http-gateway";
import { LOCAL_REGION } from "#devstack/lambda-context";
import { localLambdas } from "#devstack/lambdas";
import { DelayQueue } from "#devstack/queue";
import { LambdaRuntime } from "#devstack/runtime";
import { every } from "#devstack/schedules";
import { type CallRecord, type RunningEmulator, startEmulator } from "#emulator/server";
import type { SyncMessage, TransitionMessage } from "#lib/app/contracts";
import { MetricsRecorder } from "#lib/app/metrics/recorder";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { ManualClock } from "#lib/core/clock";
import { pollPhasesEndedBy } from "#lib/core/poll";
import type { Log } from "#lib/core/ports";
import { silentLog } from "#lib/core/ports";
import { channelToken } from "#lib/http/channel-token";
import { type IcsServer, startIcsServer } from "#lib/local/ics-server";
import { pollPhase } from "#lib/store/items/user";
import { createTableInput } from "#lib/store/table";
import {
  type DynamoCounts,
  dynamoCounts,
  installDynamoMeter,
  priceIndexWrites,
  resetDynamoCounts,
} from "./dynamo-meter";
import { type KmsCounts, kmsCounts, meteredVault, resetKmsCounts } from "./kms-meter";
import {
  type Invocation,
  invocationCount,
  invocations,
  resetInvocations,
  timed,
} from "./lambda-meter";
import { ConcurrentManualScheduler } from "./scheduler";
import {
  BENCH_ADMIN,
  BENCH_ADMIN_TOKEN,
  BENCH_APP,
  BENCH_SIGNING_SECRET,
  BENCH_TEAM,
  benchTokenOf,
  benchWorkspace,
} from "./workspace";

export interface BenchUser {
  user: string;
  tz: string;
  /** The user's calendar feed, served at its own secret address. */
  ics: string;
  /** The user's rules (docs/rules.md); the defaults without. */
  rules?: Record<string, unknown>;
}

export interface BenchStackOptions {
  /** The simulated clock's start (epoch ms). */
  start: number;
  users: BenchUser[];
  /** Register every user with the admin's one token instead of their own. */
  adminToken?: boolean;
  /** Bind a signed generic hook to each calendar, so `push` works. */
  hooks?: boolean;
  /** Share of transition messages delivered twice, as SQS standard may (0 by default). */
  transitionDuplicateRate?: number;
  /** Queue messages due at one instant that are handled at once (Lambda concurrency). */
  concurrency?: number;
  /** Registrations and first syncs run this many at a time (setup only, not measured). */
  setupConcurrency?: number;
  /**
   * Which minute ticks to run (all by default). A long simulation may skip ticks it knows find
   * nothing due; `meters().skippedTicks` counts them so their cost can be added back.
   */
  tickFilter?: (at: number) => boolean;
  /**
   * Skip a 5-minute poll whose poll phases hold none of the users, so it
   * cannot find anything due; `meters().skippedPolls` counts them (each costs an idle poll).
   */
  skipIdlePolls?: boolean;
  log?: Log;
  /** Price global secondary index writes (slows every write: for the cost bench only). */
  priceIndexWrites?: boolean;
  /** The handlers' LOG_LEVEL (default ERROR; the cost bench logs at the deployed INFO). */
  handlerLogLevel?: "DEBUG" | "INFO" | "WARN" | "ERROR";
  /** Told each simulated instant just before its tasks start. */
  onInstant?: (at: number) => void;
  /** Told each call the emulator answers, as it records it (for real-time lateness). */
  onServiceCall?: (call: CallRecord) => void;
}

export interface Meters {
  dynamo: DynamoCounts;
  /** KMS requests, as the handlers' instances would make them (bench/support/kms-meter.ts). */
  kms: KmsCounts;
  invocations: Invocation[];
  /** Messages sent to each queue (after de-duplication). */
  queueMessages: { transition: number; sync: number };
  profileSets: CallRecord[];
  /** Every users.profile.set and users.profile.get call (read-before-write included). */
  serviceCalls: CallRecord[];
  /** Event deliveries from the service to our events endpoint. */
  eventDeliveries: number;
  /** Statuses the service cleared itself at their expiration (each echoed as user_change). */
  expiryClears: number;
  /** Minute ticks skipped by `tickFilter`. */
  skippedTicks: number;
  /** Polls skipped by `skipIdlePolls`. */
  skippedPolls: number;
}

export interface BenchStack {
  clock: ManualClock;
  /** Moves the simulated clock, running ticks, polls, queues, events and expiry on the way. */
  advanceTo(epochMs: number): Promise<void>;
  /** Waits until no request, event delivery or queue message is in progress. */
  settle(): Promise<void>;
  queues: { transition: DelayQueue<TransitionMessage>; sync: DelayQueue<SyncMessage> };
  /** The handlers' base URL (the local API Gateway). */
  url: string;
  emulator: RunningEmulator;
  ics: IcsServer;
  app: App;
  setFeed(user: string, ics: string): void;
  /** Signs and posts the user's generic calendar hook, then waits for quiet. */
  push(user: string): Promise<void>;
  /** Every users.profile.set the emulator answered since the last reset. */
  profileSets(): CallRecord[];
  meters(): Meters;
  resetMeters(): void;
  close(): Promise<void>;
}

/** Runs `fn` over `items`, `limit` at a time. */
export async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) await fn(items[i] as T, i);
  };
  await Promise.all(Array.from({ length: Math.max(1, limit) }, worker));
}

const feedPath = (user: string) => `/cal/${user}.ics`;
const TABLE_NAME = "statuspilot-bench";
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** One turn of the event loop: pending I/O callbacks run before it resolves. */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function startBenchStack(options: BenchStackOptions): Promise<BenchStack> {
  installDynamoMeter();
  priceIndexWrites(options.priceIndexWrites ?? false);
  const log = options.log ?? silentLog;
  const clock = new ManualClock(options.start);
  const closers: Array<() => Promise<void> | void> = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) {
      try {
        await close();
      } catch (error: unknown) {
        log.warn("close failed", { error: error instanceof Error ? error.message : String(error) });
      }
    }
  };
  try {
    const ics = await startIcsServer({
      clock,
      feeds: Object.fromEntries(options.users.map((u) => [feedPath(u.user), u.ics])),
    });
    closers.push(() => ics.close());
    const dynamo = await startLocalDynamo({
      table: createTableInput(TABLE_NAME),
      tableName: TABLE_NAME,
    });
    closers.push(() => dynamo.close());

    let settle: () => Promise<void> = async () => {};
    const scheduler = new ConcurrentManualScheduler(
      clock,
      options.concurrency ?? 50,
      (error: unknown) =>
        log.error("scheduled task failed", {
          error: error instanceof Error ? error.message : String(error),
        }),
      () => settle(),
      options.onInstant,
    );
    closers.push(() => scheduler.close());

    // The App is composed once the emulator and the queues exist; the functions' factories
    // get it through this source, on their first invocation.
    let app: App | undefined;
    const source = (): App => {
      if (app === undefined) throw new Error("the bench stack's app is not composed yet");
      return app;
    };
    const runtime = new LambdaRuntime({ clock, log });
    const lambdas = localLambdas({
      source,
      runtime,
      // Each invocation metered: function, simulated start, real handler time.
      wrap: async (fn, handler) => (await timed(fn, async () => ({ handler }), clock)()).handler,
    });
    const gateway = await startGateway({
      routes: lambdas.routes,
      clock,
      port: 0,
      log,
      invoke: lambdas.invokeRoute,
    });
    closers.push(() => gateway.close());
    const emulator: RunningEmulator = await startEmulator({
      workspace: benchWorkspace(
        options.users.map((u) => u.user),
        `${gateway.url}/service/events`,
      ),
      port: 0,
      clock,
      // The bench sweeps at each expiry instant itself, on the simulated clock.
      expirySweepMs: 0,
      eventRetryDelaysMs: [0, 50, 100],
      log: {
        ...log,
        info(message, data) {
          if (message === "call" && data) options.onServiceCall?.(data as unknown as CallRecord);
          log.info(message, data);
        },
      },
    });
    closers.push(() => emulator.close());

    const queues = {
      transition: new DelayQueue<TransitionMessage>({
        name: "statuspilot-bench-transition",
        scheduler,
        consume: lambdas.background<SQSEvent>("transitionWorker"),
        duplicateRate: options.transitionDuplicateRate ?? 0,
        log,
      }),
      sync: new DelayQueue<SyncMessage>({
        name: "statuspilot-bench-sync",
        scheduler,
        consume: lambdas.background<SQSEvent>("syncWorker"),
        log,
      }),
    };
    closers.push(() => {
      queues.transition.close();
      queues.sync.close();
    });

    const tokenKey = randomBytes(32).toString("base64");
    const composed = composeLocalApp(
      {
        tableName: TABLE_NAME,
        dynamoEndpoint: dynamo.endpoint,
        region: LOCAL_REGION,
        serviceBaseUrl: emulator.apiBase,
        signingSecret: BENCH_SIGNING_SECRET,
        tokenKey,
        adminApiKey: randomBytes(16).toString("hex"),
        logLevel: options.handlerLogLevel ?? "ERROR",
        appId: BENCH_APP,
      },
      {
        clock,
        // The KMS stand-in behind one cache of opened values per function instance, counted.
        tokens: meteredVault(new LocalTokenVault(tokenKey), clock),
        ...frozenAfterReturn(runtime, {
          transitionQueue: queues.transition,
          syncQueue: queues.sync,
          fetch: globalThis.fetch,
        }),
        // The feeds are served on 127.0.0.1, as in the local stack.
        allowPrivateSourceAddresses: true,
        // Logging as deployed (the cost bench) includes the metrics' EMF lines; else kept in memory.
        ...(options.handlerLogLevel === undefined ? { metrics: new MetricsRecorder() } : {}),
      },
    );
    app = composed;
    const pilot = composed.pilot;
    if (!pilot) throw new Error("the composition root offers no user administration");

    // The service clears a status at its expiration; sweep at those instants of simulated time.
    // Reading the emulator's state copies every profile, so it is read only after new echoes of
    // sets (every set the service accepts is echoed to serviceEvents), not after every instant.
    const sweepsAt = new Set<number>();
    let expiryClears = 0;
    let echoesScanned = -1;
    const scheduleExpirySweeps = () => {
      const echoes = invocationCount("serviceEvents");
      if (echoes === echoesScanned) return;
      echoesScanned = echoes;
      for (const profile of Object.values(emulator.state().profiles)) {
        const at = profile.status_expiration * 1000;
        if (profile.status_expiration <= 0 || at <= clock.now() || sweepsAt.has(at)) continue;
        sweepsAt.add(at);
        scheduler.at(at, async () => {
          sweepsAt.delete(at);
          expiryClears += await emulator.sweepExpired();
        });
      }
    };
    const busy = () =>
      gateway.inFlight() +
      emulator.pendingDeliveries() +
      queues.transition.stats().inFlight +
      queues.sync.stats().inFlight;
    settle = async () => {
      // Quiet twice in a row: an event delivery can start just after the set that caused it.
      // While nothing is in flight, a turn of the event loop is enough to tell; while something
      // is, wait a millisecond at a time rather than spin against the work itself.
      let quiet = 0;
      for (let i = 0; i < 20_000 && quiet < 2; i++) {
        if (busy() === 0) {
          quiet++;
          await turn();
        } else {
          quiet = 0;
          await sleep(1);
        }
      }
      scheduleExpirySweeps();
    };

    const secrets = new Map<string, string>();
    await eachLimited(options.users, options.setupConcurrency ?? 16, async (u) => {
      const key = { team: BENCH_TEAM, user: u.user };
      // Hooks sign with the channel's token, derived from its id.
      const secret = channelToken(await composed.signingSecret(), `${BENCH_TEAM}.${u.user}.cal1`);
      secrets.set(u.user, secret);
      await pilot.upsertUser({
        key,
        tz: u.tz,
        token: options.adminToken ? BENCH_ADMIN_TOKEN : benchTokenOf(u.user),
        ...(options.adminToken ? { adminTokenUser: BENCH_ADMIN } : {}),
        sources: [{ id: "cal1", url: ics.feedUrl(feedPath(u.user)), kind: "ics", secret }],
        ...(u.rules !== undefined ? { rules: u.rules } : {}),
        mode: "auto",
        ...(u.rules === undefined ? {} : { rules: u.rules }),
      });
      if (options.hooks) {
        await pilot.putChannel(`${BENCH_TEAM}.${u.user}.cal1`, { key, sourceId: "cal1", secret });
      }
      // The first sync: the sync worker's own code path, called directly to save setup time.
      await composed.syncSource({
        team: BENCH_TEAM,
        user: u.user,
        sourceId: "cal1",
        reason: "manual",
      });
    });

    // The minute tick and the 5-minute poll, as EventBridge schedules them.
    const runTick = lambdas.background<ScheduledEvent>("tick");
    let skippedTicks = 0;
    const tick = async (event: ScheduledEvent) => {
      if (options.tickFilter && !options.tickFilter(clock.now())) skippedTicks++;
      else await runTick(event);
    };
    const runPoll = lambdas.background<ScheduledEvent>("poll");
    let skippedPolls = 0;
    // Each user is polled at a fixed phase; a run whose phases hold none of ours finds nothing.
    const phases = options.users.map((u) => pollPhase({ team: BENCH_TEAM, user: u.user }));
    const pollCannotFindAnything = () => {
      const { from, to } = pollPhasesEndedBy(clock.now());
      return phases.every((p) => p < from || p >= to);
    };
    const poll = async (event: ScheduledEvent) => {
      if (options.skipIdlePolls && pollCannotFindAnything()) skippedPolls++;
      else await runPoll(event);
    };
    every(
      scheduler,
      { ms: 60_000, firstAt: clock.now() + 60_000, rule: "statuspilot-bench-tick" },
      tick,
    );
    every(
      scheduler,
      { ms: 5 * 60_000, firstAt: clock.now() + 5 * 60_000, rule: "statuspilot-bench-poll" },
      poll,
    );
    await scheduler.advanceTo(clock.now());

    let callsFrom = 0;
    let deliveriesFrom = 0;
    let queuesFrom = { transition: 0, sync: 0 };
    const queueTotals = () => ({
      transition: queues.transition.stats().sent,
      sync: queues.sync.stats().sent,
    });
    const serviceCalls = () =>
      emulator
        .calls()
        .slice(callsFrom)
        .filter((c) => c.method.startsWith("users.profile.") || c.method.startsWith("dnd."));
    const profileSets = () => serviceCalls().filter((c) => c.method === "users.profile.set");
    const resetMeters = () => {
      resetDynamoCounts();
      resetKmsCounts();
      resetInvocations();
      callsFrom = emulator.calls().length;
      deliveriesFrom = emulator.state().deliveries.length;
      queuesFrom = queueTotals();
      skippedTicks = 0;
      skippedPolls = 0;
      expiryClears = 0;
    };
    resetMeters();

    return {
      clock,
      advanceTo: (ms) => scheduler.advanceTo(ms),
      settle: () => scheduler.idle(),
      queues,
      url: gateway.url,
      emulator,
      ics,
      app: composed,
      setFeed: (user, text) => ics.setFeed(feedPath(user), text),
      push: async (user) => {
        const secret = secrets.get(user);
        if (!secret) throw new Error(`no hook for ${user}`);
        const body = JSON.stringify({ changed: "cal1" });
        const ts = Math.floor(clock.now() / 1000);
        const signature = `v0=${createHmac("sha256", secret).update(`v0:${ts}:${body}`).digest("hex")}`;
        const res = await fetch(`${gateway.url}/hooks/generic/${BENCH_TEAM}.${user}.cal1`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            "x-statuspilot-timestamp": String(ts),
            "x-statuspilot-signature": signature,
          },
          body,
        });
        if (res.status !== 200) {
          throw new Error(`generic hook of ${user} answered ${res.status}: ${await res.text()}`);
        }
        await scheduler.idle();
      },
      profileSets,
      meters: () => {
        const totals = queueTotals();
        const calls = serviceCalls();
        return {
          dynamo: dynamoCounts(),
          kms: kmsCounts(),
          invocations: invocations(),
          queueMessages: {
            transition: totals.transition - queuesFrom.transition,
            sync: totals.sync - queuesFrom.sync,
          },
          profileSets: calls.filter((c) => c.method === "users.profile.set"),
          serviceCalls: calls,
          eventDeliveries: emulator.state().deliveries.length - deliveriesFrom,
          expiryClears,
          skippedTicks,
          skippedPolls,
        };
      },
      resetMeters,
      close: closeAll,
    };
  } catch (error: unknown) {
    await closeAll();
    throw error;
  }
}
