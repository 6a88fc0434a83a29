import { randomBytes } from "node:crypto";
import type { SQSEvent } from "aws-lambda";
import { type App, composeLocalApp, frozenAfterReturn } from "#devstack/app";
import { type LocalDynamo, startLocalDynamo } from "#devstack/dynamo";
import { ConfigError, isAddressInUse, PortInUseError } from "#devstack/errors";
import { functionConfig, readFunctionsConfig } from "#devstack/functions-config";
import { LOCAL_REGION } from "#devstack/lambda-context";
import { localLambdas } from "#devstack/lambdas";
import { DelayQueue } from "#devstack/queue";
import { LambdaRuntime } from "#devstack/runtime";
import { ManualScheduler, RealTimeScheduler, type Scheduler } from "#devstack/scheduler";
import { every, scheduledEvent } from "#devstack/schedules";
import { newWebKey, openStateDir, type StateDir } from "#devstack/state";
import { type RunningEmulator, startEmulator } from "#emulator/server";
import { systemClock } from "#lib/app/compose/system-clock";
import type { SyncMessage, TransitionMessage } from "#lib/app/contracts";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import type { Clock } from "#lib/core/clock";
import { silentLog } from "#lib/core/ports";
import { createTableInput } from "#lib/store/table";
import { type Gateway, startGateway } from "../../devstack/http-gateway";
import { sinkAppLog } from "./app-log";
import { keepEmulatorSnapshot, readEmulatorSnapshot } from "./emulator-state";
import type { LiveEvent } from "./live-log";
import { liveLogDecorator } from "./live-outcomes";
import { localMetrics } from "./metrics";
import { migrateLocalSeals } from "./seal-migration";
import { type ControlDeps, clockMover, controlEndpoint } from "./stack-control";
import { startLocalProviders } from "./stack-providers";
import type { LocalStack, StackOptions } from "./stack-types";
import { adminOf, type LocalHook, registerUsers } from "./stack-users";
import { botTokenOf, ourApp, pointEventsAt } from "./stack-workspace";

export type { LocalStack, LocalUserConfig, StackOptions, StackTime } from "./stack-types";

/** How many live-log events the stack keeps for `GET /_local/live`. */
const LIVE_EVENTS_KEPT = 10_000;

export const TABLE_NAME = "statuspilot-local";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Starts the whole stack in this process: dynalite, the emulator (unless `serviceUrl`), the
 * handlers behind a local API Gateway, the minute tick, the poll and the two delay queues.
 * Every function's handler is made by its factory over the stack's one App.
 */
export async function startStack(options: StackOptions): Promise<LocalStack> {
  const log = options.log ?? silentLog;
  const time = options.time ?? { mode: "real" };
  const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
  const onTaskError = (e: unknown) => log.error("scheduled task failed", { error: messageOf(e) });
  const closers: Array<() => Promise<void> | void> = [];
  const closeAll = async () => {
    for (const close of closers.reverse()) {
      try {
        await close();
      } catch (error: unknown) {
        log.warn("close failed", { error: messageOf(error) });
      }
    }
  };

  let settleHook: () => Promise<void> = async () => {};
  const scheduler: Scheduler =
    time.mode === "manual"
      ? new ManualScheduler(time.clock, onTaskError, () => settleHook())
      : new RealTimeScheduler(time.clock ?? systemClock, onTaskError);
  closers.push(() => scheduler.close());
  const clock: Clock = scheduler.clock;
  const metrics = localMetrics(clock);

  try {
    // Secrets of the local stack: generated per run unless given.
    let signingSecret = options.signingSecret;
    let appId = options.appId;
    let oauthClient = options.oauthClient;
    if (!options.serviceUrl) {
      if (!options.workspace)
        throw new ConfigError("a workspace is needed to run the emulator", "/workspace");
      const app = ourApp(options.workspace, appId);
      if (!app) {
        throw new ConfigError(
          "the workspace has no app subscribed to events at a /service/events request_url",
          "/apps",
        );
      }
      appId = app.id;
      signingSecret = app.signing_secret;
      oauthClient = { id: app.client_id, secret: app.client_secret };
    }
    if (!signingSecret)
      throw new ConfigError("--service-url needs the app's signing secret", "/signingSecret");
    const stateDir: StateDir | undefined = options.stateDir
      ? openStateDir(options.stateDir, { fresh: options.fresh ?? false })
      : undefined;
    const adminApiKey =
      options.adminApiKey ?? stateDir?.state.adminApiKey ?? randomBytes(16).toString("hex");
    const tokenKey = stateDir?.state.tokenKey ?? randomBytes(32).toString("base64");
    const webKey = stateDir?.state.webKey ?? newWebKey();

    const dynamo: LocalDynamo = await startLocalDynamo({
      table: createTableInput(TABLE_NAME),
      tableName: TABLE_NAME,
      ...(stateDir ? { path: stateDir.dynamoPath } : {}),
    });
    closers.push(() => dynamo.close());
    if (stateDir) await migrateLocalSeals(dynamo.endpoint, TABLE_NAME, tokenKey, { log, clock });

    const liveEvents: LiveEvent[] = [];
    const live = (event: LiveEvent) => {
      liveEvents.push(event);
      if (liveEvents.length > LIVE_EVENTS_KEPT) liveEvents.shift();
      options.onLive?.(event);
    };
    let emulator: RunningEmulator | undefined;

    // The App is composed once the gateway's address and the queues exist; the functions'
    // factories get it through this source, on their first invocation.
    let app: App | undefined;
    const source = (): App => {
      if (app === undefined) throw new ConfigError("the stack's app is not composed yet", "/app");
      return app;
    };
    const runtime = new LambdaRuntime({ clock, log });
    const lambdas = localLambdas({
      source,
      runtime,
      ...(options.wrapHandler ? { wrap: options.wrapHandler } : {}),
    });
    let control: ControlDeps | undefined;
    const gateway: Gateway = await startGateway({
      routes: lambdas.routes,
      clock,
      invoke: lambdas.invokeRoute,
      port: options.port ?? 3000,
      log,
      local: async (req, url, body) =>
        metrics.endpoint(req.method, url) ??
        (control ? controlEndpoint(control)(req, url, body) : undefined),
    });
    closers.push(() => gateway.close());

    if (!options.serviceUrl && options.workspace && appId) {
      const snapshot = stateDir
        ? readEmulatorSnapshot(stateDir.emulatorPath, options.workspace, appId, log)
        : undefined;
      emulator = await startEmulator({
        workspace: pointEventsAt(
          options.workspace,
          appId,
          gateway.url,
          new Set(options.users.map((u) => u.token)),
        ),
        port: options.emulatorPort ?? 4010,
        clock,
        // Under a manual clock the stack sweeps at each expiry instant itself.
        expirySweepMs: time.mode === "manual" ? 0 : 1000,
        ...(time.mode === "manual" ? { eventRetryDelaysMs: [0, 50, 100] } : {}),
        ...(snapshot ? { snapshot } : {}),
      }).catch((error: unknown) => {
        throw isAddressInUse(error)
          ? new PortInUseError(options.emulatorPort ?? 4010, "emulator", { cause: error })
          : error;
      });
      const running = emulator;
      closers.push(() => running.close());
      if (stateDir) {
        const kept = keepEmulatorSnapshot(running, stateDir.emulatorPath, { log });
        closers.push(() => kept.stop());
      }
    }
    const serviceBase = options.serviceUrl ?? emulator?.apiBase ?? "";

    const functions = readFunctionsConfig();
    const queueOf = (functionName: string) => {
      const queue = functionConfig(functions, functionName).queue;
      if (!queue) throw new ConfigError(`${functionName} has no SQS event`, "/functions");
      return {
        batchSize: queue.batchSize,
        maxReceives: queue.maxReceiveCount,
        visibilityTimeoutMs: queue.visibilityTimeoutMs,
        duplicateRate: options.duplicateRate ?? 0,
        batchSameInstant: true,
        seed: options.seed ?? 1,
      };
    };
    const queues = {
      transition: new DelayQueue<TransitionMessage>({
        name: "statuspilot-local-transition",
        scheduler,
        consume: lambdas.background<SQSEvent>("transitionWorker"),
        log,
        ...queueOf("transitionWorker"),
      }),
      sync: new DelayQueue<SyncMessage>({
        name: "statuspilot-local-sync",
        scheduler,
        consume: lambdas.background<SQSEvent>("syncWorker"),
        log,
        ...queueOf("syncWorker"),
      }),
    };
    closers.push(() => {
      queues.transition.close();
      queues.sync.close();
    });

    const providers = oauthClient
      ? await startLocalProviders(options, {
          publicBaseUrl: gateway.url,
          clock,
          manualClock: time.mode === "manual",
          log,
        })
      : undefined;
    if (providers) closers.push(() => providers.close());
    const { google, microsoft } = providers ?? {};

    app = composeLocalApp(
      {
        tableName: TABLE_NAME,
        dynamoEndpoint: dynamo.endpoint,
        region: LOCAL_REGION,
        serviceBaseUrl: serviceBase,
        signingSecret,
        tokenKey,
        adminApiKey,
        logLevel: options.logLevel ?? "WARN",
        ...(appId ? { appId } : {}),
        ...(oauthClient
          ? {
              web: {
                oauthClientId: oauthClient.id,
                oauthClientSecret: oauthClient.secret,
                webKey,
                publicBaseUrl: gateway.url,
              },
            }
          : {}),
        ...(google ? { google: google.settings } : {}),
        ...(microsoft ? { microsoft: microsoft.env } : {}),
      },
      {
        clock,
        ...(options.wrapTokens
          ? { tokens: options.wrapTokens(new LocalTokenVault(tokenKey)) }
          : {}),
        ...frozenAfterReturn(runtime, {
          transitionQueue: queues.transition,
          syncQueue: queues.sync,
          fetch: options.wrapFetch?.(globalThis.fetch) ?? globalThis.fetch,
        }),
        // Local feeds live on 127.0.0.1 (the ICS server, a file server on the LAN): fetch them.
        allowPrivateSourceAddresses: true,
        metrics: metrics.recorder,
        ...(options.pushTtlMs !== undefined ? { pushTtlMs: options.pushTtlMs } : {}),
        ...(options.tickHorizonMs !== undefined ? { tickHorizonMs: options.tickHorizonMs } : {}),
        ...(options.appLog ? { log: sinkAppLog(options.appLog, options.logLevel ?? "WARN") } : {}),
        decorateReconcile: liveLogDecorator({
          clock,
          live,
          emulator,
          appId,
          scheduler,
          // The emulator sweeps once a second in real time; under manual time at the instant.
          expiryGraceMs: time.mode === "manual" ? 1 : 1500,
        }),
      },
    );

    closers.push(() => runtime.close()); // closed first: running work stops, Ctrl-C exits at once
    // Manual time: sweep the emulator at each status's expiry instant, as its timer would.
    const sweepsAt = new Set<number>();
    const scheduleExpirySweeps = () => {
      if (!emulator || time.mode !== "manual") return;
      for (const expiration of emulator.statusExpirations()) {
        const at = expiration * 1000;
        if (at <= clock.now() || sweepsAt.has(at)) continue;
        sweepsAt.add(at);
        const running = emulator;
        scheduler.at(at, async () => {
          sweepsAt.delete(at);
          await running.sweepExpired();
        });
      }
    };
    const settle = async () => {
      // Quiet twice in a row, a loop turn apart: each delivery counts from when it is made.
      let quietRounds = 0;
      for (let i = 0; i < 2000 && quietRounds < 2; i++) {
        const busy =
          gateway.inFlight() +
          (emulator?.pendingDeliveries() ?? 0) +
          (google?.emulator?.control.pushesUnderway() ?? 0) +
          (microsoft?.emulator?.notificationsUnderway() ?? 0) +
          queues.transition.stats().inFlight +
          queues.sync.stats().inFlight;
        quietRounds = busy === 0 ? quietRounds + 1 : 0;
        await (busy === 0 ? nextTurn() : sleep(2));
      }
      scheduleExpirySweeps();
    };
    settleHook = settle;

    const settleAll = async () => {
      await settle();
      await scheduler.idle();
    };

    // Users from the configuration, then a first sync of every calendar.
    const hookList: LocalHook[] = await registerUsers({
      app,
      bot: options.serviceUrl ? undefined : botTokenOf(options.workspace, appId),
      users: options.users,
      stateDir,
      syncQueue: queues.sync,
    });
    // The minute tick and the poll, as EventBridge schedules; the first tick right away.
    const tick = lambdas.background<ReturnType<typeof scheduledEvent>>("tick");
    const poll = lambdas.background<ReturnType<typeof scheduledEvent>>("poll");
    // Each a rate rule from its first period on; `/_local/schedules` disables them.
    const rate = (ms: number, rule: string, fn: typeof tick) =>
      every(scheduler, { ms, firstAt: clock.now() + ms, rule }, fn);
    const schedules = [
      rate(options.tickEveryMs ?? 60_000, "statuspilot-local-tick", tick),
      rate(options.pollEveryMs ?? 5 * 60_000, "statuspilot-local-poll", poll),
    ];

    control = {
      clock,
      mode: time.mode,
      moveClock: clockMover(scheduler, time.mode === "real" && time.skippable === true),
      settle: settleAll,
      schedules,
      hooks: () => hookList,
      url: gateway.url,
      liveEvents: () => liveEvents,
      users: options.users,
      admin: adminOf(app),
      pushStates: (key) => app?.connect?.pushStates(key) ?? Promise.resolve([]),
      emulator,
      queues,
    };

    if (time.mode === "manual") {
      await (scheduler as ManualScheduler).advanceTo(clock.now());
      await tick(scheduledEvent(clock.now(), "statuspilot-local-tick"));
      await settle();
    } else {
      scheduler.at(clock.now(), () => tick(scheduledEvent(clock.now(), "statuspilot-local-tick")));
    }

    stateDir?.save();

    const manual = () => {
      if (!(scheduler instanceof ManualScheduler)) {
        throw new ConfigError(
          "advancing the clock needs a stack started with manual time",
          "/time",
        );
      }
      return scheduler;
    };
    return {
      url: gateway.url,
      ...(oauthClient ? { installUrl: `${gateway.url}/install` } : {}),
      port: gateway.port,
      ...(emulator ? { emulator } : {}),
      ...(google ? { google } : {}),
      ...(microsoft ? { microsoft } : {}),
      serviceBase,
      dynamoEndpoint: dynamo.endpoint,
      adminApiKey,
      clock,
      scheduler,
      queues,
      hooks: new Map(
        hookList.map((h) => [
          `${h.user}/${h.sourceId}`,
          { channelId: h.channelId, secret: h.secret },
        ]),
      ),
      runtime,
      advanceTo: (ms) => manual().advanceTo(ms),
      advance: (ms) => manual().advance(ms),
      settle: settleAll,
      liveEvents: () => liveEvents,
      close: closeAll,
    };
  } catch (error: unknown) {
    await closeAll();
    throw error;
  }
}
