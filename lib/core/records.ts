import type { SnoozeRecord } from "./dnd";
import type { ChannelKind, SourceKind } from "./source-kinds";
import type { Block, StatusValue, UserKey } from "./types";

export type { ChannelKind, SourceKind };

/** What the store keeps, as the use cases and their ports see it. */

export interface OutOfOfficeInput {
  start: number;
  end: number;
  text?: string;
  emoji?: string;
}

export interface OutOfOfficeEntry extends Required<OutOfOfficeInput> {
  id: string;
  createdAt: number;
}

export type UserMode = "auto" | "paused";

export interface SourceRecord {
  id: string;
  kind: SourceKind;
  /**
   * The calendar's secret address, sealed to its owner (field `source_url`): a credential, so
   * only the sync opens it, to fetch (lib/app/secrets/source-address.ts).
   */
  urlSealed?: string;
  /** A fingerprint of the address bound to the user and source: compared without opening. */
  urlDigest?: string;
  /** What may be shown of the address: scheme, host and a hint. */
  urlShown?: string;
  /**
   * The address in clear, on records written before addresses were sealed: still read, and
   * sealed in its place by the next sync of the user's calendars (or change of them).
   */
  url?: string;
  /** Channel token / clientState / hook secret, sealed. */
  secretSealed?: string;
  etag?: string;
  lastModified?: string;
  hash?: string;
  syncedAt?: number;
  /** The last read reached a cap and used the calendar only up to it (cleared by a full read). */
  tooLarge?: TooLargeMark;
  /**
   * The calendar's display name as last read (an ICS feed's X-WR-CALNAME, else its host and file
   * name; a connected calendar's title and account). Absent until a read that found one.
   */
  name?: string;
  // --- Sources connected through a provider's API (issue 14) ---
  /** The connected account's OAuth refresh token, sealed. */
  refreshTokenSealed?: string;
  /** The provider's incremental-read cursor (Google nextSyncToken, Graph deltaLink). */
  cursor?: string;
  /** When the refresh token was refused (invalid_grant), epoch ms: the user must reconnect. */
  reconnectSince?: number;
  /** The live push channel (Google) or subscription (Graph), and its upkeep. */
  push?: SourcePush;
  // --- end connected sources ---
  /** How its reads go (./source-health.ts): written only when that changes. */
  health?: SourceHealth;
}

/**
 * Why a calendar's reads fail, as the person is told (./source-health.ts gives the words).
 * `unreachable`: no answer; `server_error`: 5xx or 429; `gone`: 404 or 410; `refused`: another
 * 4xx; `address_refused`: the address may not be fetched; `not_calendar`: not iCalendar;
 * `too_large`: over a read's budget; `provider`: the provider's API failed; `failed`: other.
 */
export type SourceErrorKind =
  | "unreachable"
  | "server_error"
  | "gone"
  | "refused"
  | "address_refused"
  | "not_calendar"
  | "too_large"
  | "provider"
  | "failed";

/** A run of failed reads of a source. */
export interface SourceError {
  kind: SourceErrorKind;
  /** The HTTP status, when the answer had one. */
  status?: number;
  /** The first failed read of this run, epoch ms: every read since has failed. */
  since: number;
  /** When the long-failing notice was queued for it (once per run), epoch ms. */
  noticedAt?: number;
}

/** How a source's reads go; absent: no read failed since health was recorded. */
export interface SourceHealth {
  /** The last read known good when the reads last changed from good to failing or back. */
  okAt?: number;
  error?: SourceError;
}

/**
 * Which cap a calendar's read reached: its size (`bytes`: not read at all), an event's
 * occurrences in the window, the feed's occurrences, or the time its expansion may take
 * (lib/calendar/work-budget.ts). Shown to the person beside that calendar.
 */
export type FeedLimit = "bytes" | "event_occurrences" | "feed_occurrences" | "time_budget";

export interface TooLargeMark {
  limit: FeedLimit;
  /** The cap's value at the time: bytes, occurrences, or milliseconds. */
  cap: number;
  /** When the read ran, epoch ms. */
  at: number;
}

/** A source's push channel as its upkeep (lib/app/push-*.ts) records it. */
export interface SourcePush {
  channelId: string;
  /**
   * The channel id whose binding authenticates its pushes, when not `channelId`: a Graph
   * subscription's id is Graph's, its clientState carries ours.
   */
  bindingId?: string;
  /** Google's resourceId (channels.stop needs it). */
  resourceId?: string;
  /** When the channel was created, epoch ms: its lifetime runs from here to `expiresAt`. */
  createdAt: number;
  expiresAt: number;
  /** Renewals that failed in a row since the last success. */
  failures?: number;
  /** A safety-net poll found changes no push announced: the channel went quiet. */
  silentSince?: number;
  /** A lifecycle notification (Graph) asked for this: the next upkeep does it. */
  requested?: "renew" | "recreate";
}

export interface UserRecord {
  key: UserKey;
  tz: string;
  tokenSealed: string;
  /** The admin whose token this is, when it acts on `key.user` through the `user` parameter. */
  adminTokenUser?: string;
  emails: string[];
  sources: SourceRecord[];
  /** Partial user rules, validated by the rules schema when used. */
  rules: Record<string, unknown>;
  mode: UserMode;
  // --- Token rotation and the app's removal (issue 13, chat side) ---
  /** With token rotation on: the refresh token, sealed like the access token. */
  refreshTokenSealed?: string;
  /** With token rotation on: when the access token stops working, epoch ms. */
  tokenExpiresAt?: number;
  /**
   * Until when (epoch ms) one worker holds the right to spend the refresh token; others wait
   * for the token it stores instead of refreshing too (the refresh token is single-use).
   */
  tokenRefreshUntil?: number;
  /** When the service said the app was uninstalled from the team: the data-deletion clock. */
  uninstalledAt?: number;
  // --- end of token rotation and removal ---
  version: number;
  updatedAt: number;
  // --- Front door (install and settings page) ---
  /**
   * The session epoch: the instant (epoch ms) this user was installed through the front door.
   * Session cookies carry it and count only while it matches, so a cookie from before a
   * disconnect (which deletes the user; a new install sets a new instant) never works again.
   * An instant, never a counter: a counter would restart and repeat after a deletion.
   */
  sessionEpoch?: number;
  // --- end front door ---
  /**
   * The user token's scopes as far as known: granted at install, less the Do Not Disturb ones
   * once the service answered `missing_scope` (lib/core/dnd.ts dndAllowed). Absent on users
   * installed before it was kept, and on users an administrator set up.
   */
  grantedScopes?: string[];
  /** The person turned off the direct messages that say something broke (issue 26). */
  dmsOff?: boolean;
}

// ---- The status state: what the reconcile keeps of each user's profile (./reconcile/state.ts) ---

/** Where the actual status was last observed: an event (`ours`, `manual`, `expired`), a read. */
export type ObservationSource = "ours" | "manual" | "expired" | "unknown" | "read";

export interface Observation {
  status: StatusValue;
  /** When the observation happened, epoch ms (an event's `event_time` × 1000, our send, or our read). */
  observedAt: number;
  source: ObservationSource;
}

/** One of our own writes the service applied, kept so its echo is recognised even when late. */
export interface RecentWrite {
  status: StatusValue;
  /** When the write was sent, epoch ms: the service applied it at or after this instant. */
  at: number;
  /**
   * Epoch ms by which the service had applied it: when its answer was recorded, the end of its
   * echo's second, or the read that showed it. Absent in items stored before it existed.
   */
  until?: number;
}

/**
 * A write we sent whose outcome we do not know (its call failed after it may have reached the
 * service, or recording its answer failed): its echo is ours, and it may be what shows.
 */
export interface AttemptedWrite {
  status: StatusValue;
  sentAt: number;
}

/** A write one reconcile has claimed and is sending; others must not send a different one. */
export interface PendingWrite {
  status: StatusValue;
  claimedAt: number;
  /** Another reconcile found a different status due while this one was in flight. */
  recheck?: boolean;
}

/** What was observed of the profile: by `user_change` events, our own writes and our reads. */
export interface Observed {
  /** What the profile shows, as last observed. */
  actual: Observation;
  /** A status the user set themselves; we leave it alone until it expires or is cleared. */
  override?: { status: StatusValue; since: number };
  /**
   * The standing status: the status the person last set with no expiry, or their clear by hand
   * since (an empty status). Observed in every mode (./reconcile/state.ts); with the rule
   * `standing: "restore"`, blocks show over it and it is set back after them
   * (docs/reconcile.md). Absent in items stored before it existed.
   */
  standing?: Standing;
  /** Newest last; bounded to `RECENT_EVENT_IDS`. Makes event application idempotent. */
  recentEventIds: string[];
}

/** The records of our own writes: what we wrote, sent, claimed, and what became of it. */
export interface OurWrites {
  /** What we last wrote; `undefined` when we never wrote anything. */
  lastWritten?: StatusValue;
  /** Newest last; bounded to `RECENT_WRITES`. */
  recentWrites: RecentWrite[];
  /** Newest last; bounded to `RECENT_ATTEMPTS`. Absent in items stored before it existed. */
  attempts?: AttemptedWrite[];
  /** The write one reconcile claimed and is sending. */
  pending?: PendingWrite;
  /** The service refused this status for a reason retrying cannot fix; don't send it again. */
  rejected?: { status: StatusValue; code: string; at: number };
  /**
   * A final auth error, a `tokens_revoked` or an `app_uninstalled` stopped all service calls
   * for this user until they authorise again. `deleteAt` (after an uninstall): when the user's
   * data is deleted unless they reinstall first; the due index wakes the user then.
   */
  needsReauth?: { code: string; at: number; deleteAt?: number };
  /** When to try again after a failure or for the rate budget; `attempt` paces the backoff. */
  retry?: { attempt: number; at: number; code: string };
}

/** The per-user status state. Stored as is: a renamed field must still be read by its old name. */
export interface StatusState extends Observed, OurWrites {}

/** The person's latest status with no expiry, or their latest clear by hand (an empty status). */
export interface Standing {
  status: StatusValue;
  /**
   * When the person set it (or cleared by hand): the event's second, or for what a read found,
   * the read (the latest it can have been; a block that began before it does not show over it).
   */
  since: number;
  /** A read found it: the person set it after this instant (our observation before the read). */
  from?: number;
}

export interface StatusRecord {
  key: UserKey;
  state: StatusState;
  version: number;
  /** Next instant (epoch ms) the desired status changes or an override ends; indexed. */
  nextTransitionAt?: number;
  /** Whether that transition starts an out-of-office block (ordered first by the tick). */
  nextIsOoo?: boolean;
  /** The transition instant already put on the queue, so re-ticks skip it. */
  enqueuedFor?: number;
  updatedAt: number;
}

export interface TimelineRecord {
  key: UserKey;
  sourceId: string;
  blocks: Block[];
  etag?: string;
  hash?: string;
  version: number;
  updatedAt: number;
}

export interface OutOfOfficeRecord extends OutOfOfficeEntry {
  key: UserKey;
}

/** Which hook a push channel belongs to (Google channel, Graph subscription, generic hook). */

export interface ChannelRecord {
  channelId: string;
  key: UserKey;
  sourceId: string;
  secretSealed?: string;
  /**
   * The hook the channel was bound for; pushes through any other hook are refused. Records
   * written before kinds existed have none and are accepted by every hook.
   */
  kind?: ChannelKind;
  /** Epoch ms: from then on the binding authenticates nothing (its channel was replaced or stopped). */
  retiresAt?: number;
  version: number;
}

/** Everything about one user, read in one consistent query. */
export interface UserSnapshot {
  user?: UserRecord;
  status?: StatusRecord;
  timelines: TimelineRecord[];
  ooo: OutOfOfficeRecord[];
  /** The Do Not Disturb snooze Statuspilot set, if any (lib/core/dnd.ts). */
  snooze?: SnoozeRecord;
}
