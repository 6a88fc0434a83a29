import type { StatusKind } from "./status-kinds";

/**
 * Shared domain vocabulary. Units: instants are epoch milliseconds (`start`, `end`, `at`);
 * `expiration` is epoch seconds, because that is the service's `status_expiration` unit.
 */

/** Identifies one user of one workspace. */
export interface UserKey {
  team: string;
  user: string;
}

/** A custom status as the service stores it. `expiration` 0 means it never expires. */
export interface StatusValue {
  text: string;
  emoji: string;
  expiration: number;
}

export const EMPTY_STATUS: StatusValue = Object.freeze({ text: "", emoji: "", expiration: 0 });

export const isEmptyStatus = (s: StatusValue): boolean => s.text === "" && s.emoji === "";

export const sameStatus = (a: StatusValue, b: StatusValue): boolean =>
  a.text === b.text &&
  a.emoji === b.emoji &&
  // An empty status has no meaningful expiration.
  (isEmptyStatus(a) || a.expiration === b.expiration);

/** The status as it is now: one whose expiration has passed was cleared by the service. */
export const effectiveStatus = (status: StatusValue, now: number): StatusValue =>
  status.expiration > 0 && status.expiration * 1000 <= now ? { ...EMPTY_STATUS } : status;

/** The kinds come from one table (status-kinds.ts); this is their name union. */
export type { StatusKind } from "./status-kinds";

/**
 * The kinds a block has besides the table's (status-kinds.ts): one of the person's own statuses
 * (`custom` in their rules, the status's name in `name`), and the stretch outside their working
 * hours (`offHours`).
 */
export type RuleKind = "custom" | "offHours";

/** What a block is: a kind of the table, or one the person's rules make. */
export type BlockKind<K extends string = StatusKind> = K | RuleKind;

/**
 * One stretch of time with one status. `expiration` equals `end` in epoch seconds.
 * `priority` ranks it among overlapping blocks (higher shows); a block of a table kind carries
 * none, and ranks by the table (so do blocks stored before priorities were stored). `dnd`: the
 * person is in Do Not Disturb while it shows. `name`: the custom status it shows.
 */
export interface Block<K extends string = StatusKind> {
  start: number;
  end: number;
  text: string;
  emoji: string;
  kind: BlockKind<K>;
  expiration: number;
  priority?: number;
  dnd?: boolean;
  name?: string;
}

/** One expanded calendar occurrence; produced by lib/calendar, consumed by lib/core rules. */
export interface Occurrence {
  uid: string;
  /** ISO-8601 UTC instant (or YYYY-MM-DD for all-day) of the instance this overrides. */
  recurrenceId?: string;
  start: number;
  end: number;
  allDay: boolean;
  summary: string;
  status?: string;
  transp?: string;
  busyStatus?: string;
  class?: string;
  partstat?: string;
  attendeeCount: number;
  /**
   * How many people besides the user take part (attendees and organizer, rooms and resources
   * left out). Absent on occurrences made before it was counted: then `attendeeCount - 1`.
   */
  guests?: number;
  /** The event has a video-call link (Meet, Zoom, Teams, Webex, Whereby). */
  online?: boolean;
  /** The calendar source it was read from; the sync stamps it (providers do not know ids). */
  sourceId?: string;
  location?: string;
}

/** A `user_change` observation, reduced to what reconciliation needs. */
export interface UserChange {
  eventId: string;
  /** Event time, epoch seconds (the envelope's `event_time`). */
  eventTime: number;
  key: UserKey;
  tz?: string;
  status: StatusValue;
}
