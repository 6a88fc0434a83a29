import { randomUUID } from "node:crypto";
import { lookup } from "node:dns/promises";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { SQSClient } from "@aws-sdk/client-sqs";
import type { ResolveHost } from "../calendar/feed-fetch";
import type { Clock } from "../core/clock";
import type { Queue, StatusGateway, TokenVault } from "../core/ports";
import type { ChannelKind } from "../core/records";
import { buildTimeline } from "../core/timeline";
import type { UserKey } from "../core/types";
import { DynamoOneTimeMarks } from "../store/dynamo-one-time-marks";
import { DynamoRateBudget } from "../store/dynamo-rate-budget";
import { DynamoStore } from "../store/dynamo-store";
import { DynamoSyncGate } from "../store/dynamo-sync-gate";
import { type Config, ConfigError, loadConfig } from "./config";
import type {
  ChannelBindingInput,
  StatusUseCases,
  StatusView,
  SyncMessage,
  TransitionMessage,
  UpsertUserInput,
  UserView,
} from "./contracts";
import {
  createDeferredReconcileUseCases,
  type DeferredCommandUseCases,
} from "./deferred-reconcile";
import { createFrontDoorParts, type FrontDoorParts } from "./front-door-parts";
import { LocalTokenVault } from "./local-token-vault";
import type { AppLog } from "./logger";
import { createLog } from "./logger";
import { tokenRefresherFor } from "./oauth-token-refresher";
import { ServiceStatusGateway } from "./service-gateway";
import { SqsQueue } from "./sqs-queue";
import type { ExpandFn, Expansion, SyncOutcome } from "./sync";
import { type SyncDeps, syncSource } from "./sync";
import { createSyncRequester, type GatedSyncDeps, runGatedSync } from "./sync-coalescing";
import { systemClock } from "./system-clock";
import { createUseCases, type UseCaseDeps, type UseCases } from "./use-cases";

/**
 * Modules only some functions need, loaded on first use. infra/build.ts replaces each one with
 * a stub in the bundles of functions that never call it (its LAZY_MODULES table names them by
 * these exact specifiers), so the tick's bundle carries no ical.js, KMS, SSM or service client.
 */
export const lazy = {
  calendar: () => import("../calendar/expand"),
  kms: () => import("./kms-token-vault"),
  signingSecret: () => import("./signing-secret"),
  service: () => import("../service/client"),
  oauth: () => import("../service/oauth-client"),
};

/** A calendar push channel (Google channel id, Graph subscription id, or generic source id). */
export interface ChannelBinding {
  team: string;
  user: string;
  sourceId: string;
  /** Google channel token, Graph clientState, or the generic hook's HMAC secret. */
  secret?: string;
  /** The hook it was bound for; other hooks refuse it. Absent on bindings stored before kinds. */
  kind?: ChannelKind;
}

/** The user-administration functions the handlers call (createUseCases builds them). */
export interface UserAdmin {
  /** Creates or replaces a user; the token and source secrets are stored sealed. */
  upsertUser(input: UpsertUserInput): Promise<UserView>;
  getUser(key: UserKey): Promise<UserView | undefined>;
  getStatusView(key: UserKey): Promise<StatusView | undefined>;
  /** Binds a Google channel / Graph subscription / generic hook id to a user's source. */
  putChannel(channelId: string, binding: ChannelBindingInput): Promise<void>;
  findChannel(channelId: string): Promise<ChannelBinding | undefined>;
  /** The user's IANA zone, for reading dates in `/ooo` commands. */
  userZone(key: UserKey): Promise<string | undefined>;
  /** ICS sources the poll run at `now` re-syncs (each every 15 min): the safety net. */
  sourcesDue(now: number): Promise<SyncMessage[]>;
}

export interface App {
  config: Config;
  clock: Clock;
  log: AppLog;
  useCases: StatusUseCases;
  /**
   * The out-of-office use cases as the `/ooo` command runs them: stored at once, the status
   * update queued for the transition worker, so the reply never waits on the service.
   */
  oooCommands: Pick<
    StatusUseCases,
    "scheduleOutOfOffice" | "listOutOfOffice" | "cancelOutOfOffice"
  >;
  admin: UserAdmin;
  /** `/statuspilot`'s pause and resume: the mode stored at once, the reconcile queued. */
  chatCommands?: Pick<DeferredCommandUseCases, "setMode">;
  /** The full use-case object: user administration (upsertUser, getUser, getStatusView, …). */
  pilot?: UseCases;
  syncQueue: Queue<SyncMessage>;
  transitionQueue: Queue<TransitionMessage>;
  /**
   * Asks for a re-sync: queued at once, unless one queued or running covers it (false then).
   * Across Lambdas, through the source's sync gate in DynamoDB (lib/app/sync-coalescing.ts).
   */
  requestSync(msg: SyncMessage): Promise<boolean>;
  /**
   * Syncs a source under its gate: `owner` is the SQS message id (a redelivery re-claims), a
   * fresh one for a direct call. Pushes during the sync make it run once more.
   */
  syncSource(msg: SyncMessage, requestedAt?: number, owner?: string): Promise<SyncOutcome>;
  /** The service's signing secret (an SSM SecureString on AWS, cached a few minutes). */
  signingSecret(): Promise<string>;
  /** The front door's parts (install, settings page); lib/web/front-door.ts builds on them. */
  frontDoor?: FrontDoorParts;
}

export interface AppOverrides {
  clock?: Clock;
  transitionQueue?: Queue<TransitionMessage>;
  syncQueue?: Queue<SyncMessage>;
  fetch?: typeof fetch;
  tokens?: TokenVault;
  /** The log every handler and use case writes to (the local stack's readable lines). */
  log?: AppLog;
  /**
   * Local stacks only: calendar feeds on loopback and private addresses may be registered and
   * fetched. Never an environment variable, so no deployed function can be configured into it.
   */
  allowPrivateSourceAddresses?: boolean;
  /** How feed host names are resolved for the address check (tests); DNS by default. */
  resolveHost?: ResolveHost;
}

let overrides: AppOverrides = {};
let provided: App | undefined;
let building: Promise<App> | undefined;

/** Injects parts before the first getApp() (the local stack's delay queues and clock). */
export function setAppOverrides(partial: AppOverrides): void {
  if (building) throw new Error("setAppOverrides must be called before the first getApp()");
  overrides = { ...overrides, ...partial };
}

/** Supplies a whole App, for handler tests with fakes of our own ports. */
export function provideApp(app: App): void {
  provided = app;
  building = Promise.resolve(app);
}

/** Forgets the cached App and overrides (tests). */
export function resetApp(): void {
  overrides = {};
  provided = undefined;
  building = undefined;
}

/** Builds everything once per process from the environment and caches it. */
export function getApp(): Promise<App> {
  if (provided) return Promise.resolve(provided);
  if (!building) {
    building = buildApp(process.env, overrides);
    // A failed build is not cached: the next invocation retries with the same error message.
    building.catch(() => {
      building = undefined;
    });
  }
  return building;
}

/** The composition root proper: real adapters from the configuration, overrides first. */
export async function buildApp(
  env: Record<string, string | undefined>,
  parts: AppOverrides,
): Promise<App> {
  const config = loadConfig(env);
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
      readParameter: async (name, variable) =>
        (await lazy.signingSecret()).readSecureParameter(region, name, variable),
    }),
    // --- end front door ---
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
