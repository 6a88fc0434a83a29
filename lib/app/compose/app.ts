import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { ResolveHost } from "#lib/calendar/feed-fetch";
import type { PinnedFetch } from "#lib/calendar/pinned-connection";
import type { Clock, WorkTimer } from "#lib/core/clock";
import type { Notifier, Queue, TokenVault } from "#lib/core/ports";
import type { ChannelKind } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import type { Config } from "../config";
import type { ConnectParts } from "../connect/use-cases";
import type {
  ChannelBindingInput,
  ChannelLookup,
  PollBatchMessage,
  ReconcileOutcome,
  StatusUseCases,
  StatusView,
  SyncMessage,
  TransitionMessage,
  UpsertUserInput,
  UserView,
} from "../contracts";
import type { AppMetrics } from "../metrics/powertools";
import type { NotifyParts } from "../notify/parts";
import type { FrontDoorParts } from "../people/front-door";
import type { DeferredCommandUseCases } from "../people/slash-commands";
import type { SyncOutcome } from "../sync/sync";
import type { AppLog } from "./logger";
import type { AppModules } from "./modules";
import type { UseCases } from "./use-cases";

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
  /** `openSecret: false` leaves the stored secret sealed (no KMS call): the hooks' lookup. */
  findChannel(channelId: string, lookup?: ChannelLookup): Promise<ChannelBinding | undefined>;
  /** The user's IANA zone, for reading dates in `/ooo` commands. */
  userZone(key: UserKey): Promise<string | undefined>;
  /** ICS sources the poll run at `now` re-syncs (each every 15 min): the safety net. */
  sourcesDue(now: number): Promise<SyncMessage[]>;
}

export interface App {
  config: Config;
  clock: Clock;
  log: AppLog;
  /** Operational metrics (lib/app/metrics/catalog.ts); the handlers flush them after each invocation. */
  metrics?: AppMetrics;
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
  syncQueue: Queue<SyncMessage | PollBatchMessage>;
  transitionQueue: Queue<TransitionMessage>;
  /**
   * Asks for a re-sync: queued at once, unless one queued or running covers it (false then).
   * Across Lambdas, through the source's sync gate in DynamoDB (lib/app/sync/coalescing.ts).
   */
  requestSync(msg: SyncMessage): Promise<boolean>;
  /**
   * Syncs a source under its gate: `owner` is the SQS message id (a redelivery re-claims), a
   * fresh one for a direct call. Pushes during the sync make it run once more.
   */
  syncSource(msg: SyncMessage, requestedAt?: number, owner?: string): Promise<SyncOutcome>;
  /** The service's signing secret (an SSM SecureString on AWS, cached a few minutes). */
  signingSecret(): Promise<string>;
  /**
   * The app's DynamoDB client, for the idempotency layer to share (so it is guarded and
   * configured alike); absent in handler tests over fakes.
   */
  dynamoClient?: DynamoDBClient;
  /** The front door's parts (install, settings page); lib/web/front-door.ts builds on them. */
  frontDoor?: FrontDoorParts;
  /** Calendars connected through OAuth (Google): connect flow, push states (issue 14). */
  connect?: ConnectParts;
  /** Telling people (issue 26): the Home tab, messages once per problem, Sync now. */
  notify?: NotifyParts;
}

/** Where a Lambda's handler gets its App: built once per container, on first use. */
export type AppSource = () => App;

/** One user's reconcile, as the use cases run it. */
export type ReconcileFn = (key: UserKey) => Promise<ReconcileOutcome>;

export interface AppOverrides {
  /**
   * The modules only some functions need (calendar engine, KMS, SSM, service and OAuth
   * clients). Each function's factory names its own, so its bundle carries only those; a use
   * case reaching for one it was not given fails with `ModuleNotBundledError`.
   */
  modules?: AppModules;
  clock?: Clock;
  transitionQueue?: Queue<TransitionMessage>;
  syncQueue?: Queue<SyncMessage | PollBatchMessage>;
  fetch?: typeof fetch;
  /**
   * The vault, used as given: the one built from the configuration keeps what it opened
   * (lib/app/secrets/opened-values.ts); a harness that wants that wraps its own.
   */
  tokens?: TokenVault;
  /** The log every handler and use case writes to (the local stack's readable lines). */
  log?: AppLog;
  /** Where metrics go: EMF through Powertools by default, the local stack's recorder locally. */
  metrics?: AppMetrics;
  /**
   * Local stacks only: calendar feeds on loopback and private addresses may be registered and
   * fetched. Never an environment variable, so no deployed function can be configured into it.
   */
  allowPrivateSourceAddresses?: boolean;
  /** How feed host names are resolved for the address check (tests); DNS by default. */
  resolveHost?: ResolveHost;
  /** How a checked feed address is requested (tests record it); node:http(s) by default. */
  fetchPinned?: PinnedFetch;
  /**
   * Wraps every reconcile the use cases run (the handlers' and their own internal ones), e.g.
   * the local stack's live log reporting each outcome.
   */
  decorateReconcile?: (reconcile: ReconcileFn) => ReconcileFn;
  /**
   * Called before every DynamoDB request the app sends, with the operation's name; throwing
   * refuses it (the local runtime refuses calls from a handler that already returned).
   */
  beforeDynamoCall?: (operation: string) => void;
  /** The lifetime asked for push channels (soaks use short ones); the providers' default else. */
  pushTtlMs?: number;
  /**
   * Times each feed's expansion and lets it give way (the system's monotonic timer by default);
   * the local stack's refuses to resume one whose invocation ended.
   */
  workTimer?: WorkTimer;
  /**
   * How far the tick looks ahead (70 s by default: the minute between ticks plus a margin); a
   * local stack that ticks less often looks ahead as far, so that what falls due between its
   * ticks is still queued to its second.
   */
  tickHorizonMs?: number;
  /** Who tells people (tests, the bench): the service's bot by default. */
  notifier?: Notifier;
}
