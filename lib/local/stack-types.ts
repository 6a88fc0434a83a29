import type { HandlerWrapper } from "#devstack/lambdas";
import type { DelayQueue } from "#devstack/queue";
import type { LambdaRuntime } from "#devstack/runtime";
import type { Scheduler } from "#devstack/scheduler";
import type { RunningEmulator, Workspace } from "#emulator/server";
import type { SyncMessage, TransitionMessage } from "#lib/app/contracts";
import type { Clock, ManualClock } from "#lib/core/clock";
import type { Log, TokenVault } from "#lib/core/ports";
import type { DemoEvent } from "./demo-feed";
import type { LocalGoogle, LocalGoogleSettings } from "./google";
import type { LiveEvent } from "./live-log";
import type { LocalMicrosoft } from "./microsoft";
import type { MicrosoftLocalConfig } from "./microsoft-config";

/** The source id the stack gives a user's `index`th calendar (from 0): `cal1`, `cal2`, … */
export const localSourceId = (index: number): string => `cal${index + 1}`;

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

/**
 * Real time (the system clock unless `clock`), or a clock moved by hand. `skippable` real time
 * may be skipped ahead (`POST /_local/clock`), for tests that would otherwise wait it out.
 */
export type StackTime =
  | { mode: "real"; clock?: Clock; skippable?: boolean }
  | { mode: "manual"; clock: ManualClock };

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
  /** How far each tick looks ahead (the app's 70 s by default); at most 15 minutes (SQS). */
  tickHorizonMs?: number;
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
  /**
   * Google Calendar (`/connect/google`): these settings (`--config`'s `providers.google`), or
   * by default the Google emulator (lib/local/google.ts); `false`: none. Needs the front door.
   */
  google?:
    | LocalGoogleSettings
    | { emulator: { autoApprove?: boolean; events?: readonly DemoEvent[] } }
    | false;
  /**
   * Microsoft (`/connect/microsoft`): these settings (`--config`'s `providers.microsoft`), or by
   * default the Microsoft emulator (lib/local/microsoft.ts); `false`: none. Needs the front door.
   */
  microsoft?: MicrosoftLocalConfig | false;
  /** The lifetime asked for push channels (soaks use short ones). */
  pushTtlMs?: number;
  /** Puts something around each function's handler (the cost bench's meters). */
  wrapHandler?: HandlerWrapper;
  /**
   * The app's token vault made of the KMS stand-in (the cost bench's per-instance KMS meter);
   * without it, the stand-in behind one cache of opened values, as a container has.
   */
  wrapTokens?: (vault: TokenVault) => TokenVault;
}

export interface LocalStack {
  /** The handlers' base URL, where API Gateway would be. */
  url: string;
  /** Where a newcomer starts (`<url>/install`); absent when the front door is off. */
  installUrl?: string;
  port: number;
  emulator?: RunningEmulator;
  /** Google: the settings the app uses, and the emulator when the stack runs it. */
  google?: LocalGoogle;
  /** Microsoft: the settings the app uses, and the emulator when the stack runs it. */
  microsoft?: LocalMicrosoft;
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
