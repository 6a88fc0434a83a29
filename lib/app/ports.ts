import type { StatusState } from "../core/status-state";
import type { Block, StatusValue, UserKey } from "../core/types";
import type { OutOfOfficeEntry } from "./contracts";

/** Ports of the use cases; lib/store and the service gateway implement them. */

/** Seals user tokens; only sealed tokens are ever stored. */
export interface TokenVault {
  seal(plain: string): Promise<string>;
  open(sealed: string): Promise<string>;
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

export type UserMode = "auto" | "paused";
export type SourceKind = import("../calendar/providers/registry").SourceKind;

export interface SourceRecord {
  id: string;
  url: string;
  kind: SourceKind;
  /** Channel token / clientState / hook secret, sealed. */
  secretSealed?: string;
  etag?: string;
  lastModified?: string;
  hash?: string;
  syncedAt?: number;
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
  version: number;
  updatedAt: number;
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
export type ChannelKind = import("../calendar/providers/registry").ChannelKind;

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
  version: number;
}

/** Everything about one user, read in one consistent query. */
export interface UserSnapshot {
  user?: UserRecord;
  status?: StatusRecord;
  timelines: TimelineRecord[];
  ooo: OutOfOfficeRecord[];
}

/** The single-table store. Writes are conditional on `version`; a lost race throws a conflict. */
export interface StatusStore {
  loadUser(key: UserKey): Promise<UserSnapshot>;
  getUser(key: UserKey): Promise<UserRecord | undefined>;
  /** `expectedVersion` undefined creates; returns the record with its new version. */
  putUser(user: UserRecord, expectedVersion: number | undefined): Promise<UserRecord>;
  getStatus(key: UserKey): Promise<StatusRecord | undefined>;
  putStatus(status: StatusRecord, expectedVersion: number | undefined): Promise<StatusRecord>;
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
  /** Records an event id until `expiresAt` (ms); false when an unexpired record exists. */
  recordEvent(eventId: string, expiresAt: number, now: number): Promise<boolean>;
  seenEvent(eventId: string, now: number): Promise<boolean>;
  /** Status records whose next transition lies in [from, to), through the sharded index. */
  dueBetween(from: number, to: number): Promise<StatusRecord[]>;
  /** Users with a source to poll whose poll phase lies in [phaseFrom, phaseTo) ms. */
  usersToPoll(phaseFrom: number, phaseTo: number): Promise<UserRecord[]>;
}
