import type { AgendaEvent } from "#lib/core/agenda";
import type {
  ChannelKind,
  OutOfOfficeEntry,
  OutOfOfficeInput,
  SourceHealth,
  SourceKind,
  SourceRecord,
  StatusState,
  TooLargeMark,
  UserMode,
} from "#lib/core/records";
import type { UserRules } from "#lib/core/rules";
import type { Block, StatusValue, UserChange, UserKey } from "#lib/core/types";

/**
 * The use cases that handlers, the local stack, benchmarks and the soak call, and the messages
 * and views they exchange. lib/app implements them over the ports of lib/core.
 */

export type { OutOfOfficeEntry, OutOfOfficeInput } from "#lib/core/records";

/** A message on the transition queue: reconcile this user at (about) this instant. */
export interface TransitionMessage {
  team: string;
  user: string;
  /** The instant (epoch ms) the transition is due; the consumer reconciles at its own "now". */
  at: number;
  /** `notice`: look at what the person is told (lib/app/notify/notices.ts), not a reconcile. */
  reason: "transition" | "retry" | "timeline" | "user_change" | "ooo" | "notice";
  /**
   * A `user_change` acknowledged before it was recorded (the events endpoint's deadline passed):
   * the worker records it, idempotently by event_id, then reconciles.
   */
  change?: UserChange;
  /** With `notice`: publish the Home tab even if unchanged (it was opened). */
  notice?: { force?: true };
}

/** A message on the sync queue: re-fetch and re-expand one calendar source. */
export interface SyncMessage {
  team: string;
  user: string;
  sourceId: string;
  /** `upkeep`: look after the source's push channel (lib/app/push/schedule.ts), not a read. */
  reason: "push" | "poll" | "manual" | "upkeep";
  /** With `upkeep`: why it runs now, when not because its entry fell due. */
  upkeep?: UpkeepRequest;
  /**
   * What the poll read of the source from its index: a check of an unchanged calendar then
   * needs no read of the store. Absent, the sync reads the source first.
   */
  known?: KnownSource;
}

/**
 * An upkeep asked for outside its schedule: a lifecycle notification's `request` (about the
 * subscription `channelId`), or a `repair` (the poll found the upkeep overdue: it runs unless
 * the source's entry holds a later instant).
 */
export interface UpkeepRequest {
  request?: "renew" | "recreate";
  channelId?: string;
  repair?: true;
}

/** A source as the poll index holds it: how to fetch it and what its last check recorded. */
export interface KnownSource {
  kind: SourceKind;
  /** The address as stored: sealed to its owner, or in clear when written before sealing. */
  url?: string;
  urlSealed?: string;
  /** Connected through a provider's API: the sync loads it (its token and cursor) instead. */
  connected?: true;
  etag?: string;
  lastModified?: string;
  hash?: string;
  syncedAt?: number;
  /** Its read health, so that a good read of a failing source knows to clear it. */
  health?: SourceHealth;
}

/** The poll's message on the sync queue: several sources checked together (SyncMessages). */
export interface PollBatchMessage {
  reason: "poll";
  sources: SyncMessage[];
}

export type ReconcileOutcome =
  | { kind: "set"; text: string; emoji: string; expiration: number }
  | { kind: "clear" }
  | { kind: "leave"; reason: string }
  | { kind: "nothing" }
  | { kind: "rescheduled"; at: number; code: string }
  | { kind: "needs_reauth"; code: string }
  | { kind: "conflict_retried_out" };

export interface TimelineMeta {
  sourceId: string;
  etag?: string;
  hash?: string;
  /** The calendar's events near today, for the settings page (lib/core/agenda.ts). */
  agenda?: AgendaEvent[];
}

export interface SourceInput {
  id: string;
  url: string;
  kind: SourceKind;
  secret?: string;
}

export interface UpsertUserInput {
  key: UserKey;
  tz: string;
  /** The plain token; stored sealed only. */
  token: string;
  /** With token rotation on: the plain refresh token (stored sealed) and the token's expiry. */
  refreshToken?: string;
  tokenExpiresAt?: number;
  /** The admin whose token this is, when it acts on `key.user`. */
  adminTokenUser?: string;
  emails?: string[];
  sources: SourceInput[];
  rules?: Record<string, unknown>;
  mode: UserMode;
}

/** A user as callers may see it: no token, no source secrets. */
export interface UserView {
  key: UserKey;
  tz: string;
  mode: UserMode;
  adminTokenUser?: string;
  emails: string[];
  /** `name`: the calendar's display name, once a read found one. */
  sources: Array<{ id: string; kind: SourceKind; syncedAt?: number; name?: string }>;
  rules: UserRules;
  needsReauth?: { code: string; at: number; deleteAt?: number };
}

export interface StatusView {
  desired?: Block;
  actual: StatusState["actual"];
  lastWritten?: StatusValue;
  override?: StatusState["override"];
  nextTransitionAt?: number;
  needsReauth?: { code: string; at: number; deleteAt?: number };
  pending?: StatusState["pending"];
  /** The user's calendars, each address redacted (scheme, host, a hint): never whole. */
  calendars: Array<{ id: string; kind: SourceKind; address: string; name?: string }>;
}

export interface ChannelView {
  team: string;
  user: string;
  sourceId: string;
  secret?: string;
  /** The hook the channel was bound for; absent on bindings stored before kinds existed. */
  kind?: ChannelKind;
}

/**
 * How a channel is looked up. `openSecret: false` (the calendar hooks, which authenticate a push
 * by its channel token before the lookup and never use the stored secret) leaves the secret
 * sealed: a push costs no KMS call. Opened by default (the admin API reads it back).
 */
export interface ChannelLookup {
  openSecret?: boolean;
}

/** What `putChannel` binds a channel id to. */
export interface ChannelBindingInput {
  key: UserKey;
  sourceId: string;
  secret?: string;
  /** Omitted: a re-bind keeps the stored kind, a new binding has none (accepted by every hook). */
  kind?: ChannelKind;
}

/** One calendar source and its owner, as the sync reads it (the sync's SyncSourceView). */
export interface SourceView {
  /**
   * Which provider reads it (lib/calendar/providers/registry.ts). Views without one are read as
   * ICS feeds, as every kind was before providers had reads of their own.
   */
  kind?: SourceKind;
  /** The secret address in clear (stored sealed): opened only when called, by the sync, to fetch. */
  openUrl(): Promise<string>;
  tz: string;
  emails: string[];
  rules: UserRules;
  etag?: string;
  lastModified?: string;
  hash?: string;
  /** When the feed was last checked (fetched, or answered 304), epoch ms. */
  syncedAt?: number;
  /**
   * The source as stored, when the loader has it: a connected source's read takes its token,
   * cursor and channel from here instead of reading the user a second time.
   */
  stored?: SourceRecord;
}

/** What a source's check records (see the sync). */
export interface SourceSyncInput {
  /** Absent when the calendar was not read (too large): its last read stands. */
  syncedAt?: number;
  etag?: string;
  lastModified?: string;
  hash?: string;
  /** A connected source's incremental-read cursor (Google nextSyncToken). */
  cursor?: string;
  /** The cap the read reached; null: read in full, so a mark from before goes; absent: kept. */
  tooLarge?: TooLargeMark | null;
  /** The calendar's display name, when the read found one. */
  name?: string;
}

export interface StatusUseCases {
  reconcileUser(key: UserKey): Promise<ReconcileOutcome>;
  /**
   * A transition's wake-up: the reconcile, then, once an uninstall's grace period is over, the
   * deletion of the user's data (`leave`, `deleted`). Only the transition worker calls it.
   */
  wakeUser(key: UserKey): Promise<ReconcileOutcome>;
  /** Returns false when the event was a duplicate (by event_id) and nothing was done. */
  recordUserChange(change: UserChange): Promise<boolean>;
  /**
   * Whether the event tells nothing new (one read): a `duplicate` already recorded, or an
   * `echo` of ours; recording it would be a no-op, so it needs neither recording nor the
   * once-only gate. Undefined when it must be recorded.
   */
  isNothingNew?(change: UserChange): Promise<"duplicate" | "echo" | undefined>;
  applyTimeline(key: UserKey, blocks: Block[], meta: TimelineMeta): Promise<void>;
  /** Enqueues every transition due in the next 70 s; returns how many were enqueued. */
  tick(): Promise<number>;
  scheduleOutOfOffice(key: UserKey, input: OutOfOfficeInput): Promise<OutOfOfficeEntry>;
  listOutOfOffice(key: UserKey): Promise<OutOfOfficeEntry[]>;
  cancelOutOfOffice(key: UserKey, id: string): Promise<boolean>;
  /** `tokens_revoked`: stops the listed users of the team; returns how many were known. */
  recordTokensRevoked(team: string, users: string[]): Promise<number>;
  /** `app_uninstalled`: stops every user of the team and schedules their data's deletion. */
  recordAppUninstalled(team: string): Promise<number>;
}

/** User administration for handlers, the CLI and the local stack. */
export interface UserAdministration {
  upsertUser(input: UpsertUserInput): Promise<UserView>;
  getUser(key: UserKey): Promise<UserView | undefined>;
  getStatusView(key: UserKey): Promise<StatusView | undefined>;
  /** The teams in which this user id has a profile (a full read of the table: rare lookups). */
  teamsOfUser(user: string): Promise<string[]>;
  userZone(key: UserKey): Promise<string | undefined>;
  putChannel(channelId: string, binding: ChannelBindingInput): Promise<void>;
  findChannel(channelId: string, lookup?: ChannelLookup): Promise<ChannelView | undefined>;
  /** Sources the poll run at `now` (epoch ms) re-syncs: each every 15 min, at a fixed phase. */
  sourcesDue(now: number): Promise<SyncMessage[]>;
  loadSource(key: UserKey, sourceId: string): Promise<SourceView | undefined>;
  recordSourceSync(key: UserKey, sourceId: string, sync: SourceSyncInput): Promise<void>;
}
