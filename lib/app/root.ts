import type { ResolveHost } from "../calendar/feed-fetch";
import type { Clock } from "../core/clock";
import type { Queue, TokenVault } from "../core/ports";
import type { ChannelKind } from "../core/records";
import type { UserKey } from "../core/types";
import type { Config } from "./config";
import type { ConnectParts } from "./connect-parts";
import type {
  ChannelBindingInput,
  StatusUseCases,
  StatusView,
  SyncMessage,
  TransitionMessage,
  UpsertUserInput,
  UserView,
} from "./contracts";
import type { DeferredCommandUseCases } from "./deferred-reconcile";
import type { FrontDoorParts } from "./front-door-parts";
import type { AppLog } from "./logger";
import type { SyncOutcome } from "./sync";
import type { UseCases } from "./use-cases";

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
  /** Calendars connected through OAuth (Google): connect flow, push states (issue 14). */
  connect?: ConnectParts;
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
  /** The lifetime asked for push channels (soaks use short ones); the providers' default else. */
  pushTtlMs?: number;
}
