import { randomBytes, randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Context, ScheduledEvent, SQSEvent } from "aws-lambda";
import * as z from "zod";
import { type App, composeLocalApp, releaseLocalApp } from "../../devstack/app";
import { type LocalDynamo, startLocalDynamo } from "../../devstack/dynamo";
import { ConfigError, isAddressInUse, PortInUseError } from "../../devstack/errors";
import { functionConfig, readFunctionsConfig } from "../../devstack/functions-config";
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from "../../devstack/lambda-context";
import { DelayQueue } from "../../devstack/queue";
import { LambdaRuntime } from "../../devstack/runtime";
import { ManualScheduler, RealTimeScheduler, type Scheduler } from "../../devstack/scheduler";
import { newWebKey, openStateDir, type StateDir } from "../../devstack/state";
import { type RunningEmulator, startEmulator, type Workspace } from "../../emulator/server";
import { backgroundFunctions, routes } from "../../functions/routes";
import type { SyncMessage, TransitionMessage } from "../app/contracts";
import { systemClock } from "../app/system-clock";
import type { Clock, ManualClock } from "../core/clock";
import type { Log } from "../core/ports";
import { silentLog } from "../core/ports";
import type { UserKey } from "../core/types";
import { channelToken, newChannelId } from "../http/channel-token";
import { createTableInput } from "../store/table";
import { sinkAppLog } from "./app-log";
import { type Gateway, startGateway } from "./http-gateway";
import type { LiveEvent } from "./live-log";
import { liveLogDecorator } from "./live-outcomes";
import { localMetrics } from "./metrics";
import { migrateLocalSeals } from "./seal-migration";

/** One user the stack registers at start, as in the `--config` file. */
export interface LocalUserConfig {
  team: string;
  user: string;
  token: string;
  tz: string;
  /** ICS feed URLs; each becomes a source `cal1`, `cal2`, … */
  calendars: string[];
  rules?: Record<string, unknown>;
  emails?: string[];
}

export type StackTime = { mode: "real"; clock?: Clock } | { mode: "manual"; clock: ManualClock };

export interface StackOptions {
  /** The emulator's workspace; unused with `serviceUrl`. */
  workspace?: Workspace;
  users: LocalUserConfig[];
  /** Drive a real service at this API base instead of the emulator. */
  serviceUrl?: string;
  /** The app's signing secret; taken from the workspace's app when the emulator runs. */
  signingSecret?: string;
  appId?: string;
  /**
   * The app's OAuth client at the service, for the front door (`/install`, `/settings`); taken
   * from the workspace's app when the emulator runs. Without it, with `serviceUrl`, the front
   * door is off.
   */
  oauthClient?: { id: string; secret: string };
  /** Handlers port (3000 by default; 0 picks a free one). */
  port?: number;
  emulatorPort?: number;
  time?: StackTime;
  tickEveryMs?: number;
  pollEveryMs?: number;
  /** Key for the admin API's `x-api-key`; a random one when not given. */
  adminApiKey?: string;
  onLive?: (event: LiveEvent) => void;
  /** Diagnostics of the stack itself (not the handlers' JSON logs). */
  log?: Log;
  /**
   * Where the handlers' own log records go (e.g. readable lines). Without it they stay the
   * Powertools JSON lines on stdout/stderr that Lambda would write.
   */
  appLog?: Log;
  /** The handlers' log level (LOG_LEVEL); WARN by default. */
  logLevel?: "DEBUG" | "INFO" | "WARN" | "ERROR";
  /**
   * Keep DynamoDB, the generated secrets and the hook channel ids in this directory, so a
   * restart finds them again. Without it everything lives in memory for this run.
   */
  stateDir?: string;
  /** With `stateDir`: empty it first (new data, new secrets). */
  fresh?: boolean;
  /** Share of queue sends delivered twice, as SQS standard may (0 by default). */
  duplicateRate?: number;
  /** Seed of the queues' duplicate draw. */
  seed?: number;
}

export interface LocalStack {
  /** The handlers' base URL, where API Gateway would be. */
  url: string;
  /** Where a newcomer starts (`<url>/install`); absent when the front door is off. */
  installUrl?: string;
  port: number;
  emulator?: RunningEmulator;
  /** The service API base the handlers call. */
  serviceBase: string;
  dynamoEndpoint: string;
  adminApiKey: string;
  clock: Clock;
  scheduler: Scheduler;
  queues: { transition: DelayQueue<TransitionMessage>; sync: DelayQueue<SyncMessage> };
  /** The generic hook (`POST /hooks/generic/{channelId}`) of each source, by `${user}/${sourceId}`. */
  hooks: ReadonlyMap<string, { channelId: string; secret: string }>;
  /** Manual time only: move the clock, running the tick, queues and expiry on the way. */
  advanceTo(epochMs: number): Promise<void>;
  advance(ms: number): Promise<void>;
  /** Waits until no request, delivery or queue message is being processed. */
  settle(): Promise<void>;
  /** The local Lambda runtime: timeouts and the calls it refused after an invocation ended. */
  runtime: LambdaRuntime;
  /** Every live-log event so far (also served at `GET /_local/live`). */
  liveEvents(): readonly LiveEvent[];
  close(): Promise<void>;
}

/** How many live-log events the stack keeps for `GET /_local/live`. */
const LIVE_EVENTS_KEPT = 10_000;

const DAY_MS = 86_400_000;

/** `POST /_local/clock`: move a manual clock by an amount or to an instant (epoch ms). */
const clockMove = z.union([
  z
    .object({
      advanceMs: z
        .number()
        .int()
        .min(0)
        .max(366 * DAY_MS),
    })
    .strict(),
  z.object({ to: z.number().int().min(0) }).strict(),
]);

type LocalAnswer = { status: number; body: unknown };

const badRequest = (message: string): LocalAnswer => ({
  status: 400,
  body: { error: "invalid_request", message },
});

export const TABLE_NAME = "statuspilot-local";

/** The user-admin functions the stack needs from the composition root (lib/app). */
interface LocalUserAdmin {
  upsertUser(input: {
    key: UserKey;
    tz: string;
    token: string;
    sources: Array<{ id: string; url: string; kind: "ics"; secret?: string }>;
    rules?: Record<string, unknown>;
    emails?: string[];
    mode: "auto";
  }): Promise<unknown>;
  putChannel(
    channelId: string,
    binding: { key: UserKey; sourceId: string; secret?: string; kind: "generic" },
  ): Promise<void>;
  getStatusView?(key: UserKey): Promise<unknown>;
}

const adminOf = (app: App): LocalUserAdmin => {
  const admin = (app.pilot ?? app.admin) as unknown as Partial<LocalUserAdmin>;
  if (typeof admin.upsertUser !== "function" || typeof admin.putChannel !== "function") {
    throw new ConfigError(
      "the app offers no upsertUser/putChannel; users cannot be registered",
      "/users",
    );
  }
  return admin as LocalUserAdmin;
};

/** Finds the app whose events come to us: the one subscribed at a `/service/events` URL. */
function ourApp(workspace: Workspace, appId?: string) {
  const candidates = workspace.apps.filter((a) => {
    const url = (
      a.manifest.settings as { event_subscriptions?: { request_url?: unknown } } | undefined
    )?.event_subscriptions?.request_url;
    return typeof url === "string" && url.endsWith("/service/events");
  });
  return (
    candidates.find((a) => appId === undefined || a.id === appId) ??
    workspace.apps.find((a) => a.id === appId)
  );
}

/**
 * The workspace with our app's event subscription and OAuth redirect pointed at this stack's
 * handlers, whatever port they got: the stack's `/oauth/callback` joins the app's
 * `redirect_urls`, as a developer would add it to the app's settings. The tokens
 * the users gave Statuspilot (`ourTokens`) are issued to our app, as an install would, so the
 * call log tells our calls from the user's own; a token already of an app keeps it.
 */
function pointEventsAt(
  workspace: Workspace,
  appId: string,
  handlersUrl: string,
  ourTokens: ReadonlySet<string>,
): Workspace {
  const copy = structuredClone(workspace);
  for (const token of copy.tokens) {
    if (ourTokens.has(token.token) && token.app === undefined) token.app = appId;
  }
  for (const app of copy.apps) {
    if (app.id !== appId) continue;
    const settings = (app.manifest.settings ?? {}) as {
      event_subscriptions?: Record<string, unknown>;
    };
    settings.event_subscriptions = {
      ...settings.event_subscriptions,
      request_url: `${handlersUrl}/service/events`,
    };
    app.manifest.settings = settings;
    const oauth = (app.manifest.oauth_config ?? {}) as { redirect_urls?: unknown };
    const redirects = Array.isArray(oauth.redirect_urls) ? oauth.redirect_urls : [];
    const ours = `${handlersUrl}/oauth/callback`;
    oauth.redirect_urls = redirects.includes(ours) ? redirects : [...redirects, ours];
    app.manifest.oauth_config = oauth;
  }
  return copy;
}

const scheduledEvent = (clock: Clock, rule: string): ScheduledEvent => ({
  version: "0",
  id: randomUUID(),
  "detail-type": "Scheduled Event",
  source: "aws.events",
  account: LOCAL_ACCOUNT_ID,
  time: new Date(clock.now()).toISOString().replace(/\.\d{3}Z$/, "Z"),
  region: LOCAL_REGION,
  resources: [`arn:aws:events:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:rule/${rule}`],
  detail: {},
});

type Invoke<E> = (event: E, context: Context) => Promise<unknown>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts the whole stack in this process: dynalite, the emulator (unless `serviceUrl`), the
 * handlers behind a local API Gateway, the minute tick, the poll and the two delay queues.
 * The handlers get their App from one module singleton, so only one stack runs per process.
 */
export async function startStack(options: StackOptions): Promise<LocalStack> {
  const log = options.log ?? silentLog;
  const time = options.time ?? { mode: "real" };
  const clock: Clock = time.mode === "manual" ? time.clock : (time.clock ?? systemClock);
  const metrics = localMetrics(clock);
  const onTaskError = (error: unknown) =>
    log.error("scheduled task failed", {
      error: error instanceof Error ? error.message : String(error),
    });
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

  let settleHook: () => Promise<void> = async () => {};
  const scheduler: Scheduler =
    time.mode === "manual"
      ? new ManualScheduler(time.clock, onTaskError, () => settleHook())
      : new RealTimeScheduler(clock, onTaskError);
  closers.push(() => scheduler.close());

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

    const hooks = new Map<string, { channelId: string; secret: string }>();
    const hookList: Array<{
      team: string;
      user: string;
      sourceId: string;
      channelId: string;
      secret: string;
    }> = [];
    const liveEvents: LiveEvent[] = [];
    const live = (event: LiveEvent) => {
      liveEvents.push(event);
      if (liveEvents.length > LIVE_EVENTS_KEPT) liveEvents.shift();
      options.onLive?.(event);
    };
    let emulator: RunningEmulator | undefined;

    const functions = readFunctionsConfig();
    const runtime = new LambdaRuntime({ clock, log });
    const gateway: Gateway = await startGateway({
      routes,
      clock,
      invoke: (functionName, handler, event) =>
        runtime.invoke(
          {
            name: functionName,
            timeoutMs: functionConfig(functions, functionName).timeoutMs,
            handler,
          },
          event,
        ),
      port: options.port ?? 3000,
      log,
      local: (req, url, body) => localEndpoint(req, url, body),
    });
    closers.push(() => gateway.close());

    if (!options.serviceUrl && options.workspace && appId) {
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
      }).catch((error: unknown) => {
        throw isAddressInUse(error)
          ? new PortInUseError(options.emulatorPort ?? 4010, "emulator", { cause: error })
          : error;
      });
      const running = emulator;
      closers.push(() => running.close());
    }
    const serviceBase = options.serviceUrl ?? emulator?.apiBase ?? "";

    const lambda = <E>(functionName: string, load: () => Promise<{ handler: unknown }>) => {
      let loaded: Promise<Invoke<E>> | undefined;
      const { timeoutMs } = functionConfig(functions, functionName);
      return async (event: E): Promise<unknown> => {
        loaded ??= load().then((m) => m.handler as Invoke<E>);
        const handler = await loaded;
        return runtime.invoke({ name: functionName, timeoutMs, handler }, event);
      };
    };
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
    const transitionWorker = lambda<SQSEvent>(
      "transitionWorker",
      backgroundFunctions.transitionWorker,
    );
    const syncWorker = lambda<SQSEvent>("syncWorker", backgroundFunctions.syncWorker);
    const tick = lambda<ScheduledEvent>("tick", backgroundFunctions.tick);
    const poll = lambda<ScheduledEvent>("poll", backgroundFunctions.poll);

    const queues = {
      transition: new DelayQueue<TransitionMessage>({
        name: "statuspilot-local-transition",
        scheduler,
        consume: transitionWorker,
        log,
        ...queueOf("transitionWorker"),
      }),
      sync: new DelayQueue<SyncMessage>({
        name: "statuspilot-local-sync",
        scheduler,
        consume: syncWorker,
        log,
        ...queueOf("syncWorker"),
      }),
    };
    closers.push(() => {
      queues.transition.close();
      queues.sync.close();
    });

    const app = await composeLocalApp(
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
      },
      {
        clock,
        // Ports a handler reaches after returning are refused, as Lambda would freeze them.
        transitionQueue: runtime.guard("transitionQueue", queues.transition),
        syncQueue: runtime.guard("syncQueue", queues.sync),
        fetch: runtime.guardFetch(globalThis.fetch),
        // Local feeds live on 127.0.0.1 (the ICS server, a file server on the LAN): fetch them.
        allowPrivateSourceAddresses: true,
        metrics: metrics.recorder,
        ...(options.appLog ? { log: sinkAppLog(options.appLog, options.logLevel ?? "WARN") } : {}),
      },
      [
        liveLogDecorator({
          clock,
          live,
          emulator,
          appId,
          scheduler,
          // The emulator sweeps once a second in real time; under manual time at the instant.
          expiryGraceMs: time.mode === "manual" ? 1 : 1500,
        }),
      ],
    );
    closers.push(() => releaseLocalApp());

    // Manual time: sweep the emulator at each status's expiry instant, as its timer would.
    const sweepsAt = new Set<number>();
    const scheduleExpirySweeps = () => {
      if (!emulator || time.mode !== "manual") return;
      for (const profile of Object.values(emulator.state().profiles)) {
        const at = profile.status_expiration * 1000;
        if (profile.status_expiration <= 0 || at <= clock.now() || sweepsAt.has(at)) continue;
        sweepsAt.add(at);
        const running = emulator;
        scheduler.at(at, async () => {
          sweepsAt.delete(at);
          await running.sweepExpired();
        });
      }
    };

    const settle = async () => {
      // Quiet twice in a row: a delivery can start just after the set that caused it returns.
      let quietRounds = 0;
      for (let i = 0; i < 2000 && quietRounds < 2; i++) {
        const busy =
          gateway.inFlight() +
          (emulator?.pendingDeliveries() ?? 0) +
          queues.transition.stats().inFlight +
          queues.sync.stats().inFlight;
        quietRounds = busy === 0 ? quietRounds + 1 : 0;
        await sleep(busy === 0 ? 5 : 2);
      }
      scheduleExpirySweeps();
    };
    settleHook = settle;

    const settleAll = async () => {
      await settle();
      await scheduler.idle();
    };

    /** The local control surface: loopback only, outside the API Gateway routes. */
    async function localEndpoint(
      req: IncomingMessage,
      url: URL,
      rawBody: string,
    ): Promise<LocalAnswer | undefined> {
      const recorded = metrics.endpoint(req.method, url);
      if (recorded) return recorded;
      if (url.pathname === "/_local/clock") {
        if (req.method === "GET")
          return { status: 200, body: { now: clock.now(), mode: time.mode } };
        if (req.method !== "POST") return undefined;
        if (!(scheduler instanceof ManualScheduler)) {
          return {
            status: 409,
            body: {
              error: "not_manual_clock",
              message: "the clock can be moved only in a stack started with manual time",
            },
          };
        }
        let json: unknown;
        try {
          json = JSON.parse(rawBody);
        } catch {
          return badRequest('body must be JSON: {"advanceMs": N} or {"to": epochMs}');
        }
        const move = clockMove.safeParse(json);
        if (!move.success) {
          return badRequest(
            'body must be {"advanceMs": N} (0 to 366 days) or {"to": epochMs}, nothing else',
          );
        }
        const to = "to" in move.data ? move.data.to : clock.now() + move.data.advanceMs;
        if (to < clock.now()) {
          return badRequest(`the clock only moves forward; it is ${clock.now()} now`);
        }
        await scheduler.advanceTo(to);
        return { status: 200, body: { now: clock.now() } };
      }
      if (url.pathname === "/_local/settle" && req.method === "POST") {
        await settleAll();
        return { status: 200, body: { now: clock.now() } };
      }
      if (url.pathname === "/_local/hooks" && req.method === "GET") {
        // The generic hooks' secrets, for tools on this machine that push calendar changes.
        return {
          status: 200,
          body: {
            hooks: hookList.map((h) => ({
              ...h,
              url: `${gateway.url}/hooks/generic/${encodeURIComponent(h.channelId)}`,
            })),
          },
        };
      }
      if (url.pathname === "/_local/live" && req.method === "GET") {
        const from = Number(url.searchParams.get("from") ?? "0");
        if (!Number.isInteger(from) || from < 0) return badRequest("from must be an integer >= 0");
        return { status: 200, body: { events: liveEvents.slice(from), next: liveEvents.length } };
      }
      const status = /^\/_local\/status\/([^/]+)$/.exec(url.pathname);
      if (req.method === "GET" && status?.[1]) {
        const user = decodeURIComponent(status[1]);
        const askedTeam = url.searchParams.get("team");
        const team = askedTeam ?? options.users.find((u) => u.user === user)?.team;
        if (!team)
          return {
            status: 404,
            body: { error: "unknown_user", message: `no user ${user} in this stack` },
          };
        const admin = adminOf(app);
        const view = await admin.getStatusView?.({ team, user });
        if (admin.getStatusView && view === undefined) {
          return {
            status: 404,
            body: { error: "unknown_user", message: `no user ${user} in team ${team}` },
          };
        }
        const profile = emulator?.state().profiles[user];
        return {
          status: 200,
          body: {
            team,
            user,
            now: clock.now(),
            view: view ?? null,
            profile: profile
              ? {
                  text: profile.status_text,
                  emoji: profile.status_emoji,
                  expiration: profile.status_expiration,
                }
              : null,
          },
        };
      }
      if (req.method === "GET" && url.pathname === "/_local/queues") {
        return {
          status: 200,
          body: {
            transition: queues.transition.stats(),
            sync: queues.sync.stats(),
            deadLetters: [...queues.transition.deadLetters(), ...queues.sync.deadLetters()],
          },
        };
      }
      return undefined;
    }

    // Users from the configuration, then a first sync of every calendar.
    const admin = adminOf(app);
    for (const u of options.users) {
      const signingSecret = await app.signingSecret();
      const sources = u.calendars.map((url, i) => {
        const id = `cal${i + 1}`;
        // Hook URLs name the channel, so its id is random (128 bits), never TEAM.USER.calN;
        // the hook's signing key is the channel token derived from that id. A kept stack
        // keeps its channel ids, so hook URLs given out before a restart still work.
        const channelKey = `${u.team}/${u.user}/${id}`;
        const channelId = stateDir?.state.channels[channelKey] ?? newChannelId();
        if (stateDir) stateDir.state.channels[channelKey] = channelId;
        const secret = channelToken(signingSecret, channelId);
        return { id, url, kind: "ics" as const, secret, channelId };
      });
      await admin.upsertUser({
        key: { team: u.team, user: u.user },
        tz: u.tz,
        token: u.token,
        sources: sources.map(({ channelId: _channelId, ...source }) => source),
        ...(u.rules ? { rules: u.rules } : {}),
        ...(u.emails ? { emails: u.emails } : {}),
        mode: "auto",
      });
      for (const s of sources) {
        const { channelId } = s;
        await admin.putChannel(channelId, {
          key: { team: u.team, user: u.user },
          sourceId: s.id,
          secret: s.secret,
          // So a Google or Graph hook naming this id is refused, whatever it is signed with.
          kind: "generic",
        });
        hooks.set(`${u.user}/${s.id}`, { channelId, secret: s.secret });
        hookList.push({
          team: u.team,
          user: u.user,
          sourceId: s.id,
          channelId,
          secret: s.secret,
        });
      }
      for (const s of sources) {
        await queues.sync.send({ team: u.team, user: u.user, sourceId: s.id, reason: "manual" });
      }
    }

    // The minute tick and the poll, as EventBridge schedules; the first tick right away.
    const every = (ms: number, rule: string, fn: (e: ScheduledEvent) => Promise<unknown>) => {
      const fire = (at: number) => {
        scheduler.at(at, async () => {
          fire(at + ms);
          await fn(scheduledEvent(clock, rule));
        });
      };
      fire(clock.now() + ms);
    };
    every(options.tickEveryMs ?? 60_000, "statuspilot-local-tick", tick);
    every(options.pollEveryMs ?? 5 * 60_000, "statuspilot-local-poll", poll);

    if (time.mode === "manual") {
      await (scheduler as ManualScheduler).advanceTo(clock.now());
      await tick(scheduledEvent(clock, "statuspilot-local-tick"));
      await settle();
    } else {
      scheduler.at(clock.now(), () => tick(scheduledEvent(clock, "statuspilot-local-tick")));
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
      serviceBase,
      dynamoEndpoint: dynamo.endpoint,
      adminApiKey,
      clock,
      scheduler,
      queues,
      hooks,
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
