import { EMPTY_STATUS, isEmptyStatus, type StatusValue } from "./types";

/**
 * The per-user status state the reconciler keeps, and the pure transitions on it:
 * applying an observed `user_change` and recording one of our own successful writes.
 */

/** Where the last applied observation of the actual status came from. */
export type ObservationSource = "ours" | "manual" | "expired" | "unknown";

export interface Observation {
  status: StatusValue;
  /** When the observation happened, epoch ms (an event's `event_time` × 1000, or our write). */
  observedAt: number;
  source: ObservationSource;
}

/** One of our own successful writes, kept so its echo is recognised even when it arrives late. */
export interface RecentWrite {
  status: StatusValue;
  /** When the write was confirmed, epoch ms. */
  at: number;
}

/** A write one reconcile has claimed and is sending; others must not send a different one. */
export interface PendingWrite {
  status: StatusValue;
  claimedAt: number;
}

export interface StatusState {
  actual: Observation;
  /** What we last wrote; `undefined` when we never wrote anything. */
  lastWritten?: StatusValue;
  /** Newest last; bounded to `RECENT_WRITES`. */
  recentWrites: RecentWrite[];
  /** A status the user set themselves; we leave it alone until it expires or is cleared. */
  override?: { status: StatusValue; since: number };
  pending?: PendingWrite;
  /** Newest last; bounded to `RECENT_EVENT_IDS`. Makes event application idempotent. */
  recentEventIds: string[];
  /** The service refused this status for a reason retrying cannot fix; don't send it again. */
  rejected?: { status: StatusValue; code: string; at: number };
  /** A final auth error stopped all writes for this user until they authorise again. */
  needsReauth?: { code: string; at: number };
  retry?: { attempt: number; at: number; code: string };
}

export const RECENT_WRITES = 8;
export const RECENT_EVENT_IDS = 32;

export const initialStatusState = (): StatusState => ({
  actual: { status: { ...EMPTY_STATUS }, observedAt: 0, source: "unknown" },
  recentWrites: [],
  recentEventIds: [],
});

export const sameStatus = (a: StatusValue, b: StatusValue): boolean =>
  a.text === b.text &&
  a.emoji === b.emoji &&
  // An empty status has no meaningful expiration.
  (isEmptyStatus(a) || a.expiration === b.expiration);

/** The status as it is now: one whose expiration has passed was cleared by the service. */
export const effectiveStatus = (status: StatusValue, now: number): StatusValue =>
  status.expiration > 0 && status.expiration * 1000 <= now ? { ...EMPTY_STATUS } : status;

export const overrideActive = (override: StatusValue | undefined, now: number): boolean =>
  override !== undefined && !isEmptyStatus(effectiveStatus(override, now));

export type ObservationResult = "duplicate" | "stale" | "ours" | "manual" | "cleared";

export interface ObservedChange {
  eventId: string;
  /** Epoch seconds. */
  eventTime: number;
  status: StatusValue;
}

/**
 * Applies one `user_change` observation. Events arrive late, twice and out of order:
 * duplicates (by id) and anything older than the newest applied observation are ignored, and
 * so is a late echo of one of our earlier writes. A non-empty status matching none of our
 * recent writes is a manual override; an empty one ends any override.
 */
export function applyObservation(
  state: StatusState,
  change: ObservedChange,
): { state: StatusState; result: ObservationResult } {
  if (state.recentEventIds.includes(change.eventId)) return { state, result: "duplicate" };
  const recentEventIds = [...state.recentEventIds, change.eventId].slice(-RECENT_EVENT_IDS);
  const seen: StatusState = { ...state, recentEventIds };
  const eventMs = change.eventTime * 1000;
  // Event times have whole-second resolution, so only a strictly earlier second is stale.
  if (change.eventTime < Math.floor(state.actual.observedAt / 1000)) {
    return { state: seen, result: "stale" };
  }
  const latest = state.recentWrites.at(-1);
  const status = {
    ...change.status,
    expiration: isEmptyStatus(change.status) ? 0 : change.status.expiration,
  };
  if (latest !== undefined && !sameStatus(latest.status, status)) {
    const olderWrite = state.recentWrites.some((w) => sameStatus(w.status, status));
    // A late echo of an earlier write of ours: it says nothing about the status now.
    // An empty status is also what a user's clear looks like, so time decides for it.
    if (
      olderWrite &&
      (!isEmptyStatus(status) || change.eventTime <= Math.floor(latest.at / 1000))
    ) {
      return { state: seen, result: "stale" };
    }
  }
  const observedAt = Math.max(eventMs, state.actual.observedAt);
  const echoOfPending = state.pending !== undefined && sameStatus(state.pending.status, status);
  // The echo can beat the sender to the store: a claimed write's echo is ours too.
  if ((latest !== undefined && sameStatus(latest.status, status)) || echoOfPending) {
    const { override: _ended, ...rest } = seen;
    return { state: { ...rest, actual: { status, observedAt, source: "ours" } }, result: "ours" };
  }
  if (isEmptyStatus(status)) {
    const { override: _ended, ...rest } = seen;
    const last = state.lastWritten;
    const expired =
      last !== undefined && last.expiration > 0 && change.eventTime >= last.expiration;
    return {
      state: { ...rest, actual: { status, observedAt, source: expired ? "expired" : "manual" } },
      result: "cleared",
    };
  }
  return {
    state: {
      ...seen,
      actual: { status, observedAt, source: "manual" },
      override: { status, since: eventMs },
    },
    result: "manual",
  };
}

/**
 * Records one of our writes that the service confirmed; `written` is what it reported back and
 * `sentAt` when we sent it. A user change observed after we sent it stays the actual status.
 */
export function recordWrite(
  state: StatusState,
  written: StatusValue,
  now: number,
  sentAt: number = now,
): StatusState {
  const { pending: _done, retry: _retried, ...rest } = state;
  const recentWrites = [...state.recentWrites, { status: written, at: now }].slice(-RECENT_WRITES);
  // Event times are whole seconds: only a strictly later second is surely after our send.
  const newerUserChange = state.actual.source !== "ours" && state.actual.observedAt > sentAt;
  if (newerUserChange && !sameStatus(state.actual.status, written)) {
    return { ...rest, lastWritten: written, recentWrites };
  }
  const { override: _gone, ...withoutOverride } = rest;
  return {
    ...withoutOverride,
    lastWritten: written,
    recentWrites,
    actual: { status: written, observedAt: Math.max(now, state.actual.observedAt), source: "ours" },
  };
}
