// lib/app/compose: building an App: configuration read once, adapters built and injected, use cases
// wired.
import { randomUUID } from "node:crypto";
import { lookup } from "node:dns/promises";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SQSClient } from "@aws-sdk/client-sqs";
import type { Queue, SnoozeGateway, StatusGateway, TokenVault } from "#lib/core/ports";
import { buildTimeline } from "#lib/core/timeline";
import type { BotClient } from "#lib/service/bot-client";
import { callTimeLeftMs } from "#lib/service/call-deadline";
import { DynamoAgendaStore } from "#lib/store/dynamo-agenda-store";
import { DynamoNoticeStore } from "#lib/store/dynamo-notice-store";
import { DynamoOneTimeMarks } from "#lib/store/dynamo-one-time-marks";
import { DynamoRateBudget } from "#lib/store/dynamo-rate-budget";
import { DynamoStore } from "#lib/store/dynamo-store";
import { DynamoSyncGate } from "#lib/store/dynamo-sync-gate";
import { DynamoUpkeepSchedule } from "#lib/store/dynamo-upkeep-schedule";
import { CONNECT_PROVIDERS, configuredProviders } from "../accounts/providers";
import { type Config, ConfigError, configFromEnvironment } from "../config";
import { createConnectParts } from "../connect/use-cases";
import { contextOf } from "../context";
import type { SyncMessage, TransitionMessage } from "../contracts";
import { withCountedPorts } from "../metrics/counted-ports";
import { createPowertoolsMetrics } from "../metrics/powertools";
import { createNotifyParts } from "../notify/parts";
import { createFrontDoorParts } from "../people/front-door";
import { createDeferredReconcileUseCases } from "../people/slash-commands";
import { LocalTokenVault } from "../secrets/local-vault";
import { tokenRefresherFor } from "../secrets/oauth-token-refresher";
import { OpenedValueCache } from "../secrets/opened-values";
import { openAddress } from "../secrets/source-address";
import { ServiceStatusGateway } from "../status/service-gateway";
import { ServiceSnoozeGateway } from "../status/snooze-gateway";
import { createSyncRequester, type GatedSyncDeps, runGatedSync } from "../sync/coalescing";
import { createFirstSync } from "../sync/feed-probe";
import { recordReadHealth } from "../sync/health";
import type { ExpandFn, Expansion, SyncDeps } from "../sync/sync";
import { syncSource } from "../sync/sync";
import type { App, AppOverrides, AppSource } from "./app";
import { createLog } from "./logger";
import { type AppModules, loaderOf } from "./modules";
import { SqsQueue } from "./sqs-queue";
import { systemClock, systemWorkTimer } from "./system-clock";
import { createUseCases, type UseCaseDeps } from "./use-cases";
/**
 * A deployed function's App: the environment read once and composed on the first invocation,
 * then kept for the container's life. A failure is not kept: the next invocation tries again
 * (and fails with the same message while the configuration is wrong).
 */
export function fromEnvironment(modules: AppModules): AppSource {
  let app: App | undefined;
  return () => {
    app ??= compose(configFromEnvironment(), { modules });
    return app;
  };
}

/**
 * The composition root: real adapters from the configuration, overrides first. Pure and
 * synchronous: it constructs clients and adapters but performs no I/O and reads no environment
 * (clients connect, and modules load, on first use).
 */
export function compose(config: Config, parts: AppOverrides = {}): App {
  const modules = parts.modules ?? {};
  const clock = parts.clock ?? systemClock;
  const log = parts.log ?? createLog({ level: config.LOG_LEVEL });
  const metrics = parts.metrics ?? createPowertoolsMetrics(log);
  const region = config.AWS_REGION;
  // dynalite accepts any credentials; give it some so the SDK never looks for real ones.
  const local = config.DYNAMODB_ENDPOINT
    ? { endpoint: config.DYNAMODB_ENDPOINT, credentials: LOCAL_CREDENTIALS }
    : {};
  // Bounded per attempt, so a DynamoDB that never answers fails the invocation (and the queue
  // retries it) long before the Lambda's own timeout.
  const dynamo = new DynamoDBClient({
    region,
    ...local,
    requestHandler: { connectionTimeout: 2_000, requestTimeout: 5_000 },
  });
  const beforeDynamoCall = parts.beforeDynamoCall;
  if (beforeDynamoCall) {
    dynamo.middlewareStack.add(
      (next, context) => async (args) => {
        beforeDynamoCall(context.commandName ?? "DynamoDB");
        return next(args);
      },
      { step: "initialize", name: "beforeDynamoCall" },
    );
  }
  const store = new DynamoStore(dynamo, config.TABLE_NAME);

  const transitionQueue =
    parts.transitionQueue ??
    sqsQueue<TransitionMessage>(config.TRANSITION_QUEUE_URL, "TRANSITION_QUEUE_URL", region);
  const syncQueue =
    parts.syncQueue ?? sqsQueue<SyncMessage>(config.SYNC_QUEUE_URL, "SYNC_QUEUE_URL", region);
  // The container keeps what it opened for a while (lib/app/secrets/opened-values.ts): a secret opened
  // again costs no KMS call. A harness's own vault is used as given.
  const tokens =
    parts.tokens ??
    new OpenedValueCache(
      config.TOKEN_KEY
        ? new LocalTokenVault(config.TOKEN_KEY)
        : lazyKmsVault(loaderOf(modules, "kms"), region, config.TOKEN_KMS_KEY_ID ?? ""),
      clock,
    );
  const fetchFn = parts.fetch ?? fetch;
  let service: Promise<[ServiceStatusGateway, ServiceSnoozeGateway]> | undefined;
  const serviceGateway = (): Promise<[ServiceStatusGateway, ServiceSnoozeGateway]> => {
    service ??= loaderOf(modules, "service")().then(({ ServiceClient }) => {
      const client = new ServiceClient({
        baseUrl: config.SERVICE_BASE_URL,
        clock,
        fetch: fetchFn,
        log,
      });
      return [new ServiceStatusGateway(client), new ServiceSnoozeGateway(client)];
    });
    return service;
  };
  const gateway: StatusGateway = {
    setStatus: async (target, status) => (await serviceGateway())[0].setStatus(target, status),
    readStatus: async (target) => (await serviceGateway())[0].readStatus(target),
  };
  const snoozes: SnoozeGateway = {
    setSnooze: async (target, minutes) => (await serviceGateway())[1].setSnooze(target, minutes),
    endSnooze: async (target) => (await serviceGateway())[1].endSnooze(target),
    snoozeInfo: async (target) => (await serviceGateway())[1].snoozeInfo(target),
  };
  const allowPrivateSourceAddresses = parts.allowPrivateSourceAddresses === true;
  // Counted at the ports: profile sets, ratelimited answers, lost races (lib/app/metrics/counted-ports).
  const pilotDeps: UseCaseDeps = withCountedPorts({
    options: {
      allowPrivateSourceAddresses,
      ...(parts.tickHorizonMs !== undefined ? { tickHorizonMs: parts.tickHorizonMs } : {}),
    },
    store,
    gateway,
    snoozes,
    transitionQueue,
    clock,
    log,
    tokens,
    metrics,
    // Spec 8.1's per-token limits across every worker, not just this Lambda's own calls.
    rateBudget: new DynamoRateBudget(dynamo, config.TABLE_NAME),
    // Token rotation (issue 13): renews expiring user tokens with the app's OAuth client.
    tokenRefresher: tokenRefresherFor(
      config,
      { clock, fetch: fetchFn, log, tokens },
      loaderOf(modules, "oauth"),
    ),
    agenda: new DynamoAgendaStore(dynamo, config.TABLE_NAME),
  });
  const pilot = createUseCases(pilotDeps, parts.decorateReconcile);
  const deferredCommands = createDeferredReconcileUseCases(pilotDeps);

  // Powertools Parameters caches the value (lib/app/secrets/signing-secret.ts), failures excepted.
  const parameters = loaderOf(modules, "parameters");
  const signingSecret = async (): Promise<string> =>
    config.SIGNING_SECRET ??
    (await parameters()).readSigningSecret(region, config.SIGNING_SECRET_PARAM ?? "");

  const readParameter = async (name: string, variable: string) =>
    (await parameters()).readSecureParameter(region, name, variable);
  const ctx = contextOf(pilotDeps, (key) => pilot.reconcileUser(key));
  const marks = new DynamoOneTimeMarks(dynamo, config.TABLE_NAME);
  // Telling people (issue 26): the Home tab, a message once per problem, Sync now.
  let bot: Promise<BotClient> | undefined;
  const notify = createNotifyParts({
    ctx,
    notices: new DynamoNoticeStore(dynamo, config.TABLE_NAME),
    marks,
    syncQueue,
    ...(config.PUBLIC_BASE_URL !== undefined ? { publicBaseUrl: config.PUBLIC_BASE_URL } : {}),
    reconnectPath: (kind) => {
      const provider = CONNECT_PROVIDERS.find((p) => p.kind === kind);
      return provider === undefined ? undefined : `/connect/${provider.path}`;
    },
    ...(parts.notifier !== undefined ? { notifier: parts.notifier } : {}),
    loadBot: () => {
      bot ??= loaderOf(modules, "bot")().then(
        (m) => new m.BotClient({ baseUrl: config.SERVICE_BASE_URL, clock, fetch: fetchFn, log }),
      );
      return bot;
    },
  });
  // Calendars connected through OAuth (issue 14): lib/app/connect/use-cases.ts.
  const connect = createConnectParts({
    ctx,
    config,
    fetch: fetchFn,
    readParameter,
    signingSecret,
    ...(parts.pushTtlMs !== undefined ? { pushTtlMs: parts.pushTtlMs } : {}),
    upkeepSchedule: new DynamoUpkeepSchedule(dynamo, config.TABLE_NAME),
    syncQueue,
  });
  const anyConnectable = configuredProviders(config).length > 0;

  const feedGuard = {
    policy: { allowPrivate: allowPrivateSourceAddresses },
    resolveHost: parts.resolveHost ?? resolveWithDns,
    ...(parts.fetchPinned ? { fetchPinned: parts.fetchPinned } : {}),
  };
  const syncDeps: SyncDeps = {
    clock,
    log,
    fetch: fetchFn,
    loadSource: (key, sourceId) => pilot.loadSource(key, sourceId),
    recordSourceSync: (key, sourceId, record) => pilot.recordSourceSync(key, sourceId, record),
    applyTimeline: (key, blocks, meta) => pilot.applyTimeline(key, blocks, meta),
    expand: lazyExpand(loaderOf(modules, "calendar")),
    buildTimeline,
    addressGuard: feedGuard,
    openAddress: (stored, { key, sourceId }) =>
      openAddress(tokens, key, { ...stored, id: sourceId }),
    metrics,
    ...(anyConnectable ? { connected: connect.sync } : {}),
    workTimer: parts.workTimer ?? systemWorkTimer,
    // The queue chain's per-record deadline (functions/shared/queue.ts), when there is one.
    timeLeftMs: callTimeLeftMs,
    // A change of a calendar's health is a change of what its person is shown.
    recordHealth: async (key, sourceId, read, known) => {
      if ((await recordReadHealth(ctx, key, sourceId, read, known)) !== undefined) {
        await notify.queue(key);
      }
    },
  };

  const syncGate = new DynamoSyncGate(dynamo, config.TABLE_NAME);
  const gatedSync: GatedSyncDeps = {
    gate: syncGate,
    clock,
    log,
    queue: syncQueue,
    sync: (msg: SyncMessage, requestedAt?: number) => syncSource(syncDeps, msg, requestedAt),
  };

  return {
    config,
    clock,
    log,
    metrics,
    useCases: pilot,
    oooCommands: deferredCommands,
    chatCommands: deferredCommands,
    admin: pilot,
    pilot,
    syncQueue,
    transitionQueue,
    requestSync: createSyncRequester(syncQueue, syncGate, clock),
    syncSource: (msg, requestedAt, owner) =>
      runGatedSync(gatedSync, msg, {
        owner: owner ?? `direct-${randomUUID()}`,
        ...(requestedAt !== undefined ? { requestedAt } : {}),
      }),
    signingSecret,
    dynamoClient: dynamo,
    // --- Front door (install, settings page): lib/app/people/front-door.ts ---
    frontDoor: createFrontDoorParts({
      config,
      useCaseDeps: pilotDeps,
      reconcile: (key) => pilot.reconcileUser(key),
      fetch: fetchFn,
      feedGuard,
      firstSync: createFirstSync(syncDeps),
      marks,
      readParameter,
    }),
    // --- end front door ---
    connect: connect.parts,
    notify,
  };
}

/** Every address the system resolver gives `hostname`, as the fetch that follows would use. */
async function resolveWithDns(hostname: string): Promise<string[]> {
  const found = await lookup(hostname.replace(/^\[|\]$/g, ""), { all: true, verbatim: true });
  return found.map((entry) => entry.address);
}

const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" };

function sqsQueue<M>(url: string | undefined, variable: string, region: string): Queue<M> {
  if (!url) {
    throw new ConfigError(
      [variable],
      `configuration: ${variable} is missing (and no queue was injected)`,
    );
  }
  return new SqsQueue<M>(new SQSClient({ region }), url);
}

/** Seals and opens with KMS, loading the KMS client on first use. */
function lazyKmsVault(
  loadKms: NonNullable<AppModules["kms"]>,
  region: string,
  keyId: string,
): TokenVault {
  let vault: Promise<TokenVault> | undefined;
  const load = () => {
    vault ??= loadKms().then(({ createKmsTokenVault }) => createKmsTokenVault(region, keyId));
    return vault;
  };
  return {
    seal: async (plain, owner) => (await load()).seal(plain, owner),
    open: async (sealed, owner) => (await load()).open(sealed, owner),
  };
}

/**
 * lib/calendar's expand, loaded on the first sync (ical.js is most of the sync's bundle): paced,
 * giving way to the event loop, when the sync times it.
 */
function lazyExpand(
  loadCalendar: NonNullable<AppModules["calendar"]>,
): (...args: Parameters<ExpandFn>) => Promise<Expansion> {
  let calendar: Awaited<ReturnType<typeof loadCalendar>> | undefined;
  return async (text, { pace, ...opts }) => {
    calendar ??= await loadCalendar();
    return pace !== undefined
      ? calendar.expandPaced(text, { ...opts, pace })
      : calendar.expand(text, opts);
  };
}
