import { randomUUID } from "node:crypto";
import { lookup } from "node:dns/promises";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SQSClient } from "@aws-sdk/client-sqs";
import type { Queue, StatusGateway, TokenVault } from "../core/ports";
import { buildTimeline } from "../core/timeline";
import { DynamoOneTimeMarks } from "../store/dynamo-one-time-marks";
import { DynamoRateBudget } from "../store/dynamo-rate-budget";
import { DynamoStore } from "../store/dynamo-store";
import { DynamoSyncGate } from "../store/dynamo-sync-gate";
import { type Config, ConfigError } from "./config";
import { createConnectParts } from "./connect-parts";
import { configuredProviders } from "./connect-providers";
import { contextOf } from "./context";
import type { SyncMessage, TransitionMessage } from "./contracts";
import { createDeferredReconcileUseCases } from "./deferred-reconcile";
import { createFrontDoorParts } from "./front-door-parts";
import { LocalTokenVault } from "./local-token-vault";
import { createLog } from "./logger";
import { tokenRefresherFor } from "./oauth-token-refresher";
import { type App, type AppOverrides, lazy } from "./root";
import { ServiceStatusGateway } from "./service-gateway";
import { SqsQueue } from "./sqs-queue";
import type { ExpandFn, Expansion, SyncDeps } from "./sync";
import { syncSource } from "./sync";
import { createSyncRequester, type GatedSyncDeps, runGatedSync } from "./sync-coalescing";
import { systemClock } from "./system-clock";
import { createUseCases, type UseCaseDeps } from "./use-cases";
/**
 * The composition root: real adapters from the configuration, overrides first. Pure and
 * synchronous: it constructs clients and adapters but performs no I/O and reads no environment
 * (clients connect, and lazy modules load, on first use).
 */
export function compose(config: Config, parts: AppOverrides = {}): App {
  const clock = parts.clock ?? systemClock;
  const log = parts.log ?? createLog({ level: config.LOG_LEVEL });
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
  const store = new DynamoStore(dynamo, config.TABLE_NAME);

  const transitionQueue =
    parts.transitionQueue ??
    sqsQueue<TransitionMessage>(config.TRANSITION_QUEUE_URL, "TRANSITION_QUEUE_URL", region);
  const syncQueue =
    parts.syncQueue ?? sqsQueue<SyncMessage>(config.SYNC_QUEUE_URL, "SYNC_QUEUE_URL", region);
  const tokens =
    parts.tokens ??
    (config.TOKEN_KEY
      ? new LocalTokenVault(config.TOKEN_KEY)
      : lazyKmsVault(region, config.TOKEN_KMS_KEY_ID ?? ""));
  const fetchFn = parts.fetch ?? fetch;
  let service: Promise<ServiceStatusGateway> | undefined;
  const serviceGateway = (): Promise<ServiceStatusGateway> => {
    service ??= lazy
      .service()
      .then(
        ({ ServiceClient }) =>
          new ServiceStatusGateway(
            new ServiceClient({ baseUrl: config.SERVICE_BASE_URL, clock, fetch: fetchFn, log }),
          ),
      );
    return service;
  };
  const gateway: StatusGateway = {
    setStatus: async (target, status) => (await serviceGateway()).setStatus(target, status),
    readStatus: async (target) => (await serviceGateway()).readStatus(target),
  };
  const allowPrivateSourceAddresses = parts.allowPrivateSourceAddresses === true;
  const pilotDeps: UseCaseDeps = {
    options: { allowPrivateSourceAddresses },
    store,
    gateway,
    transitionQueue,
    clock,
    log,
    tokens,
    // Spec 8.1's per-token limits across every worker, not just this Lambda's own calls.
    rateBudget: new DynamoRateBudget(dynamo, config.TABLE_NAME),
    // Token rotation (issue 13): renews expiring user tokens with the app's OAuth client.
    tokenRefresher: tokenRefresherFor(config, { clock, fetch: fetchFn, log, tokens }, lazy.oauth),
  };
  const pilot = createUseCases(pilotDeps);
  const deferredCommands = createDeferredReconcileUseCases(pilotDeps);

  // Powertools Parameters caches the value (lib/app/signing-secret.ts), failures excepted.
  const signingSecret = async (): Promise<string> =>
    config.SIGNING_SECRET ??
    (await lazy.signingSecret()).readSigningSecret(region, config.SIGNING_SECRET_PARAM ?? "");

  const readParameter = async (name: string, variable: string) =>
    (await lazy.signingSecret()).readSecureParameter(region, name, variable);
  // Calendars connected through OAuth (issue 14): lib/app/connect-parts.ts.
  const connect = createConnectParts({
    ctx: contextOf(pilotDeps, (key) => pilot.reconcileUser(key)),
    config,
    fetch: fetchFn,
    readParameter,
    signingSecret,
    ...(parts.pushTtlMs !== undefined ? { pushTtlMs: parts.pushTtlMs } : {}),
  });
  const anyConnectable = configuredProviders(config).length > 0;

  const feedGuard = {
    policy: { allowPrivate: allowPrivateSourceAddresses },
    resolveHost: parts.resolveHost ?? resolveWithDns,
  };
  const syncDeps: SyncDeps = {
    clock,
    log,
    fetch: fetchFn,
    loadSource: (key, sourceId) => pilot.loadSource(key, sourceId),
    recordSourceSync: (key, sourceId, record) => pilot.recordSourceSync(key, sourceId, record),
    applyTimeline: (key, blocks, meta) => pilot.applyTimeline(key, blocks, meta),
    expand: lazyExpand,
    buildTimeline,
    addressGuard: feedGuard,
    ...(anyConnectable ? { connected: connect.sync } : {}),
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
    // --- Front door (install, settings page): lib/app/front-door-parts.ts ---
    frontDoor: createFrontDoorParts({
      config,
      useCaseDeps: pilotDeps,
      reconcile: (key) => pilot.reconcileUser(key),
      fetch: fetchFn,
      feedGuard,
      marks: new DynamoOneTimeMarks(dynamo, config.TABLE_NAME),
      readParameter,
    }),
    // --- end front door ---
    connect: connect.parts,
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
function lazyKmsVault(region: string, keyId: string): TokenVault {
  let vault: Promise<TokenVault> | undefined;
  const load = () => {
    vault ??= lazy.kms().then(({ createKmsTokenVault }) => createKmsTokenVault(region, keyId));
    return vault;
  };
  return {
    seal: async (plain) => (await load()).seal(plain),
    open: async (sealed) => (await load()).open(sealed),
  };
}

/** lib/calendar's expand, loaded on the first sync (ical.js is most of the sync's bundle). */
let expandFn: ExpandFn | undefined;
async function lazyExpand(...args: Parameters<ExpandFn>): Promise<Expansion> {
  expandFn ??= (await lazy.calendar()).expand;
  return expandFn(...args);
}
