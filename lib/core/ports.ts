import type { AgendaEvent } from "./agenda";
import type { SnoozeRecord } from "./dnd";
import type {
  ChannelRecord,
  OutOfOfficeRecord,
  StatusRecord,
  TimelineRecord,
  UserRecord,
  UserSnapshot,
} from "./records";
import type { StatusValue, UserKey } from "./types";

export type { HomeRecord, NoticeStore, ProblemRecord, TeamBotRecord } from "./notice-store";
export type { Delivery, DirectMessage, HomeView, Notifier, ViewBlock } from "./notifier";

/**
 * Ports the domain and the use cases depend on; adapters (lib/store, the service gateway, the
 * queues, the vaults) live outside lib/core. The clock is in ./clock.
 */

/** How a message goes on a queue: after how long (whole seconds, 0 to 900), and under which key. */
export interface SendOptions {
  delaySeconds?: number;
  /** Names the message for a consumer that coalesces (SQS standard does not deduplicate). */
  dedupeKey?: string;
}

/** One message of a batch, with its own delay (SQS SendMessageBatch takes one per entry). */
export type QueueEntry<M> = SendOptions & { message: M };

/** Messages one batch request may carry (SQS's limit). */
export const QUEUE_BATCH_MAX = 10;

/** A queue with a per-message delay (SQS DelaySeconds in AWS, an in-process timer queue locally). */
export interface Queue<M> {
  send(message: M, opts?: SendOptions): Promise<void>;
  /**
   * Sends up to QUEUE_BATCH_MAX messages in one request (SQS SendMessageBatch), each with its
   * own delay, where the queue can. Throws unless every entry was accepted.
   */
  sendBatch?(entries: ReadonlyArray<QueueEntry<M>>): Promise<void>;
}

/** A user as the poll finds them: whose sources to check, and what their last checks recorded. */
export type PolledUser = Pick<UserRecord, "key" | "sources">;

/**
 * A status as the due index finds it: whose, when its next transition is, whether that starts an
 * out-of-office block, and which transition is already queued. All the tick needs to enqueue it.
 */
export type DueTransition = Pick<StatusRecord, "key" | "nextIsOoo" | "enqueuedFor"> & {
  nextTransitionAt: number;
};

/** Structured logging. Implementations must never print tokens or signing secrets. */
export interface Log {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

export const silentLog: Log = { debug() {}, info() {}, warn() {}, error() {} };

/** The units a metric may carry: the alarms read each metric in exactly one of them. */
export type MetricUnit = "Count" | "Milliseconds";

/**
 * Operational metrics (EMF through Powertools on AWS, an in-memory recorder locally). A value is
 * buffered and flushed once per invocation; `dimensions` split one metric into series (e.g.
 * `{ provider: "ics" }`) on top of the service dimension every metric carries.
 */
export interface Metrics {
  add(name: string, unit: MetricUnit, value: number, dimensions?: Record<string, string>): void;
}

export const silentMetrics: Metrics = { add() {} };

/** Which secret a sealed value holds: a closed list, so a key policy can name each one. */
export const SEALED_FIELDS = [
  "access_token",
  "refresh_token",
  /** A calendar's secret address (`SourceRecord.urlSealed`). */
  "source_url",
  /** A source's channel token / clientState / hook secret given at onboarding. */
  "source_secret",
  /** The secret stored with a push channel's binding. */
  "channel_secret",
  /** A calendar account's refresh token (Google, Microsoft), connected from the settings page. */
  "calendar_refresh_token",
  /** The app's OAuth client secret (`OAUTH_CLIENT_SECRET_SEALED`), owned by APP_SEAL_OWNER. */
  "oauth_client_secret",
  /** A team's bot token (the Home tab, direct messages), owned by `{team, user: "-"}`. */
  "bot_token",
] as const;
export type SealedField = (typeof SEALED_FIELDS)[number];

/**
 * Whose secret a sealed value is, and which of theirs. It is bound into the seal (the KMS
 * encryption context; the local vault's additional data), so a sealed value copied onto another
 * user's item, or into another field, does not open.
 */
export interface SealOwner {
  team: string;
  user: string;
  field: SealedField;
}

/** The owner of the app's own secrets, which belong to no team or user. */
export const APP_SEAL_OWNER = { team: "-", user: "-" } as const;

/** Seals secrets to their owner; only sealed secrets are ever stored. */
export interface TokenVault {
  seal(plain: string, owner: SealOwner): Promise<string>;
  /** Throws when `sealed` was sealed for any other owner or field. */
  open(sealed: string, owner: SealOwner): Promise<string>;
}

/** A renewed access token and the refresh token that replaces the spent one. */
export interface RefreshedToken {
  accessToken: string;
  refreshToken: string;
  /** Epoch ms at which the new access token stops working. */
  expiresAt: number;
}

/**
 * Renews a rotating user token (`oauth.v2.access` with `grant_type=refresh_token`). Throws a
 * GatewayError: `final` when the refresh token is dead (the user must reconnect), `retryable`
 * when the service could not be reached.
 */
export interface TokenRefresher {
  refresh(refreshToken: string): Promise<RefreshedToken>;
}

/** Whose profile to change, and with which token. */
export interface StatusTarget {
  key: UserKey;
  token: string;
  /** Set when the token is an admin's acting on `key.user` (the service's `user` parameter). */
  adminUser?: string;
  /** For workspace tokens: the `x-svc-user` the call is made on behalf of. */
  actingUser?: string;
}

/** Writes a custom status and reports what the profile shows afterwards; reads it back. */
export interface StatusGateway {
  setStatus(target: StatusTarget, status: StatusValue): Promise<{ actual: StatusValue }>;
  /**
   * What the profile shows now (`users.profile.get`), read right before a write so a manual
   * status whose `user_change` was lost is never overwritten. Not charged to the write budget.
   */
  readStatus(target: StatusTarget): Promise<{ actual: StatusValue }>;
}

/**
 * The user's own Do Not Disturb snooze (`dnd.setSnooze`, `dnd.endSnooze`, `dnd.info`, with the
 * user's token). Throws a GatewayError like StatusGateway; ending a snooze that is no longer on
 * (`snooze_not_active`) is not an error.
 */
export interface SnoozeGateway {
  /** Snoozes for `minutes`; answers when the snooze ends, epoch seconds. */
  setSnooze(target: StatusTarget, minutes: number): Promise<{ endS: number }>;
  endSnooze(target: StatusTarget): Promise<void>;
  /** When the user's snooze ends (epoch s), or undefined when none is on. */
  snoozeInfo(target: StatusTarget): Promise<{ endS: number | undefined }>;
}

/** A slot for one status write, or when to try again. */
export type RateSlot = { ok: true } | { ok: false; retryAt: number };

/**
 * The per-token call budget of spec 8.1, shared by every worker (each Lambda's memory holds
 * only its own calls). `tokenId` names the token's owner, never the token itself.
 */
export interface RateBudget {
  take(tokenId: string, user: string, now: number): Promise<RateSlot>;
}

/**
 * A failed status write or read: retryable ones are rescheduled, final ones stop the user's
 * writes.
 */
export class GatewayError extends Error {
  override name = "GatewayError";
  constructor(
    message: string,
    readonly code: string,
    readonly retryable: boolean,
    readonly final: boolean,
    readonly retryAfterS?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * A versioned write lost a race (or found the item gone): retry from a fresh read. Every
 * StatusStore throws it (or a subclass) for a write whose `expectedVersion` no longer holds.
 */
export class VersionConflict extends Error {
  override name = "VersionConflict";
  readonly code = "conflict";
  constructor(
    /** The item that was written, e.g. `USER#T1#U1 STATUS`. */
    readonly item: string,
    readonly expectedVersion: number | undefined,
    options?: { cause?: unknown },
  ) {
    super(`conflicting write to ${item} (expected version ${expectedVersion ?? "none"})`, options);
  }
}

/** The single-table store. Writes are conditional on `version`; a lost race throws VersionConflict. */
export interface StatusStore {
  loadUser(key: UserKey): Promise<UserSnapshot>;
  /**
   * The profile and the status alone, in one small read (not the timelines and entries loadUser
   * reads too): all that recognising a `user_change` as nothing new needs.
   */
  getUserAndStatus(key: UserKey): Promise<Pick<UserSnapshot, "user" | "status">>;
  getUser(key: UserKey): Promise<UserRecord | undefined>;
  /** `expectedVersion` undefined creates; returns the record with its new version. */
  putUser(user: UserRecord, expectedVersion: number | undefined): Promise<UserRecord>;
  getStatus(key: UserKey): Promise<StatusRecord | undefined>;
  putStatus(status: StatusRecord, expectedVersion: number | undefined): Promise<StatusRecord>;
  /** The record of the snooze Statuspilot set (lib/core/dnd.ts); loadUser reads it back. */
  putSnooze(snooze: SnoozeRecord, expectedVersion: number | undefined): Promise<SnoozeRecord>;
  putTimeline(
    timeline: TimelineRecord,
    expectedVersion: number | undefined,
  ): Promise<TimelineRecord>;
  /** Deletes one source's timeline; nothing happens when there is none. */
  deleteTimeline(key: UserKey, sourceId: string): Promise<void>;
  createOutOfOffice(entry: OutOfOfficeRecord): Promise<void>;
  /** Returns the deleted entry, or undefined when there was none. */
  deleteOutOfOffice(key: UserKey, id: string): Promise<OutOfOfficeRecord | undefined>;
  putChannel(channel: ChannelRecord, expectedVersion: number | undefined): Promise<ChannelRecord>;
  getChannel(channelId: string): Promise<ChannelRecord | undefined>;
  /**
   * The channels bound to the user, retired ones included, found through the pointers kept in
   * the user's partition (as deleteUserData finds them); a channel bound to someone else since is
   * left out.
   */
  channelsOf(key: UserKey): Promise<ChannelRecord[]>;
  /**
   * Statuses whose next transition lies in [from, to), through the sharded index: what the index
   * holds of them (eventually consistent, like usersToPoll).
   */
  dueBetween(from: number, to: number): Promise<DueTransition[]>;
  /**
   * Users with a source to poll whose poll phase lies in [phaseFrom, phaseTo) ms: their key and
   * sources only, all the poll index holds (eventually consistent).
   */
  usersToPoll(phaseFrom: number, phaseTo: number): Promise<PolledUser[]>;
  /**
   * Deletes every item of the user: profile, status, timelines, out-of-office entries, the push
   * channels bound to them, their sources' sync gates, their token's budget counters and
   * their calendars' agendas (AgendaStore). Answers how many items went; nothing happens (0) for an unknown user.
   */
  deleteUserData(key: UserKey): Promise<number>;
  /** Every user of one team (a full read of the table: only for rare events, like uninstall). */
  usersOfTeam(team: string): Promise<UserRecord[]>;
  /**
   * Every profile with this user id, whatever its team (a full read of the table: only for rare
   * lookups, like the local CLI's `status USER`).
   */
  usersWithId(user: string): Promise<UserRecord[]>;
}

/** Why a grant was not handed over: no such id, past its expiry, or already taken once. */
export type GrantRefusal = "unknown" | "expired" | "taken";

/** What taking a grant answers: its payload the first time inside its life, else why not. */
export type GrantTake = { ok: true; payload: string } | { ok: false; reason: GrantRefusal };

/**
 * Marks that can be taken once: the single use of an install `state`, the end of a session
 * (sign-out). `consume` records `id` with a conditional put and answers true the first time;
 * false while an earlier mark of the same id has not expired. `taken` answers whether a mark of
 * `id` lives at `now`. `expiresAt` and `now` are epoch milliseconds; a mark expired at `now`
 * (expiresAt <= now) counts as absent.
 *
 * Grants are stored one-time hand-overs (the Home tab's settings links): `grant` stores an
 * opaque `payload` under a fresh `id` (refused if the id exists); `take` answers the payload
 * exactly once, under any concurrency, while `now < expiresAt`, and the precise refusal otherwise
 * (an expired grant answers "expired" even if it was taken before).
 */
export interface OneTimeMarks {
  consume(id: string, expiresAt: number, now: number): Promise<boolean>;
  taken(id: string, now: number): Promise<boolean>;
  grant(id: string, payload: string, expiresAt: number): Promise<void>;
  take(id: string, now: number): Promise<GrantTake>;
}

/** One calendar source, as the sync gate keys it. */
export interface SourceRef {
  team: string;
  user: string;
  sourceId: string;
}

/** What a push found at the gate: it must queue a sync, or one queued or running covers it. */
export type GateRequest = "queue" | "joined";

/**
 * Where a message's sync stands: it runs (`claimed`), or another sync of the source is running
 * and was told to run once more after it (`handed_over`), so this message's request is covered.
 */
export type GateClaim = "claimed" | "handed_over";

/** After a sync: nothing came in meanwhile (`done`), or a push did and the source syncs again. */
export type GateFinish = "done" | "again";

/**
 * The per-source state shared by every Lambda that pushes or syncs (the DynamoDB adapter is
 * lib/store/dynamo-sync-gate.ts; the push and worker sides that use it are
 * lib/app/sync/coalescing.ts): whether a sync is queued and not yet started, whether one is
 * running (and which message runs it), and whether a push came in while it ran.
 *
 * - A push while nothing is queued or running queues a sync at once (`request` → "queue").
 * - A push while one is queued joins it: that sync starts, and so fetches, after the push.
 * - A push while one is running marks it: the runner syncs once more when it is done (a
 *   trailing sync), since its fetch may predate the change.
 * - Claims and marks expire (a dead worker; the leases are in ./sync-leases.ts), so nothing
 *   waits on a stuck state for long.
 */
export interface SyncGate {
  request(source: SourceRef, now: number): Promise<GateRequest>;
  /** Undoes a "queue" whose message could not be sent, so the next push queues again. */
  withdraw(source: SourceRef, queuedAt: number): Promise<void>;
  /** Before a sync: `owner` (the message id) runs it, unless another live sync runs already. */
  claim(source: SourceRef, owner: string, now: number): Promise<GateClaim>;
  /** After a sync: "again" renews the claim for one more round. */
  finish(source: SourceRef, owner: string, now: number): Promise<GateFinish>;
  /** After a failed sync: the source is free; the message's redelivery claims it again. */
  release(source: SourceRef, owner: string): Promise<void>;
}

/** One calendar's events near today as its last expansion read them (lib/core/agenda.ts). */
export interface AgendaRecord {
  key: UserKey;
  sourceId: string;
  events: AgendaEvent[];
  /** When the sync that read them ran, epoch ms. */
  updatedAt: number;
}

/**
 * Where each calendar's agenda is kept for the settings page's "Today" (the DynamoDB adapter is
 * lib/store/dynamo-agenda-store.ts). Apart from the user's snapshot: only the page reads it, so
 * no reconcile pays to read it. A later put of a source replaces the earlier one.
 */
export interface AgendaStore {
  put(record: AgendaRecord): Promise<void>;
  /** Every agenda of the user, of each source that has one. */
  ofUser(key: UserKey): Promise<AgendaRecord[]>;
  /** Deletes one source's agenda; nothing happens when there is none. */
  delete(key: UserKey, sourceId: string): Promise<void>;
}
