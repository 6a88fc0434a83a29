import type { Clock } from "../core/clock";
import type { Queue } from "../core/ports";
import type { UserKey } from "../core/types";
import type { Config } from "./config";
import type { StatusUseCases, SyncMessage, TransitionMessage } from "./contracts";
import type { AppLog } from "./logger";
import type { SyncOutcome } from "./sync";

/** A calendar push channel (Google channel id, Graph subscription id, or generic source id). */
export interface ChannelBinding {
  team: string;
  user: string;
  sourceId: string;
  /** Google channel token, Graph clientState, or the generic hook's HMAC secret. */
  secret?: string;
}

/** The user-administration functions the handlers call. */
export interface UserAdmin {
  findChannel(channelId: string): Promise<ChannelBinding | undefined>;
  /** The user's IANA zone, for reading dates in `/ooo` commands. */
  userZone(key: UserKey): Promise<string | undefined>;
  /** ICS sources with no sync since `before` (epoch ms): the poll's safety net. */
  sourcesDue(before: number): Promise<SyncMessage[]>;
}

export interface App {
  config: Config;
  clock: Clock;
  log: AppLog;
  useCases: StatusUseCases;
  admin: UserAdmin;
  syncQueue: Queue<SyncMessage>;
  transitionQueue: Queue<TransitionMessage>;
  /** Coalescing enqueue of a re-sync; false when it joined one already queued. */
  requestSync(msg: SyncMessage): Promise<boolean>;
  syncSource(msg: SyncMessage, requestedAt?: number): Promise<SyncOutcome>;
  /** The service's signing secret (from SSM SecureString on AWS, cached per process). */
  signingSecret(): Promise<string>;
}

export interface TokenVault {
  seal(plain: string): Promise<string>;
  open(sealed: string): Promise<string>;
}

export interface AppOverrides {
  clock?: Clock;
  transitionQueue?: Queue<TransitionMessage>;
  syncQueue?: Queue<SyncMessage>;
  fetch?: typeof fetch;
  tokens?: TokenVault;
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
  _env: Record<string, string | undefined>,
  _parts: AppOverrides,
): Promise<App> {
  throw new Error("wiring pending");
}
