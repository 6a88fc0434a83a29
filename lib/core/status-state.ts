import { EMPTY_STATUS, isEmptyStatus, type StatusValue } from "./types";

/**
 * The per-user status state the reconciler keeps, and the pure transitions on it:
 * applying an observed `user_change`, claiming a write, recording one of our own successful
 * writes, and releasing a write whose outcome is unknown.
 */

/**
 * Where the last applied observation of the actual status came from: an event (`ours`,
 * `manual`, `expired`), our own read of the profile right before a write (`read`), or nothing.
 */
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
 * A write we sent whose outcome we do not know: the call failed after it may have reached the
 * service (timeout, internal_error, fatal_error), or the service answered and recording failed.
 * Its echo is ours; until something newer is known it may be what the profile shows.
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

export interface StatusState {
  actual: Observation;
  /** What we last wrote; `undefined` when we never wrote anything. */
  lastWritten?: StatusValue;
  /** Newest last; bounded to `RECENT_WRITES`. */
  recentWrites: RecentWrite[];
  /** Newest last; bounded to `RECENT_ATTEMPTS`. Absent in items stored before it existed. */
  attempts?: AttemptedWrite[];
  /** A status the user set themselves; we leave it alone until it expires or is cleared. */
  override?: { status: StatusValue; since: number };
  pending?: PendingWrite;
  /** Newest last; bounded to `RECENT_EVENT_IDS`. Makes event application idempotent. */
  recentEventIds: string[];
  /** The service refused this status for a reason retrying cannot fix; don't send it again. */
  rejected?: { status: StatusValue; code: string; at: number };
  /**
   * A final auth error, a `tokens_revoked` or an `app_uninstalled` stopped all service calls
   * for this user until they authorise again. `deleteAt` (after an uninstall): when the user's
   * data is deleted unless they reinstall first; the due index wakes the user then.
   */
  needsReauth?: { code: string; at: number; deleteAt?: number };
  retry?: { attempt: number; at: number; code: string };
}

export const RECENT_WRITES = 8;
export const RECENT_ATTEMPTS = 4;
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

/** The whole second of an epoch-ms instant: the resolution of a `user_change`'s `event_time`. */
export const secondOf = (ms: number): number => Math.floor(ms / 1000);

/** Whether the observation is a user's change reported by an event (whole seconds, not exact). */
const fromUserEvent = (observation: Observation): boolean =>
  observation.source === "manual" || observation.source === "expired";

/**
 * Our latest write when the newest observation is a user's change that falls in a second in
 * which the service may have applied that write: event times are whole seconds, so which of the
 * two came last cannot be told. The profile shows one or the other; only a read settles it.
 */
export function tiedWrite(state: StatusState): RecentWrite | undefined {
  const observed = state.actual;
  const latest = state.recentWrites.at(-1);
  if (latest === undefined || !fromUserEvent(observed)) return undefined;
  if (sameStatus(latest.status, observed.status)) return undefined;
  const second = secondOf(observed.observedAt);
  return secondOf(latest.at) <= second && second <= secondOf(latest.until ?? latest.at)
    ? latest
    : undefined;
}

/** The claimed write still inside its lease, if any. */
export const activePending = (
  state: StatusState,
  now: number,
  leaseMs: number,
): PendingWrite | undefined =>
  state.pending !== undefined && state.pending.claimedAt + leaseMs > now
    ? state.pending
    : undefined;

/**
 * Attempts that may be on the profile, newest first: sent after our newest applied write and
 * after the newest observation, so nothing we know of says what happened to them.
 */
export function unresolvedAttempts(state: StatusState): AttemptedWrite[] {
  const latestWrite = state.recentWrites.at(-1)?.at ?? Number.NEGATIVE_INFINITY;
  // A claim counts too: once its lease ran out, its sender may have died after the service
  // applied it.
  const claim = state.pending;
  const claimed = claim === undefined ? [] : [{ status: claim.status, sentAt: claim.claimedAt }];
  const observed = state.actual;
  // A write claimed in the same millisecond as our read was sent after it; one sent at the
  // very start of a user change's second may have been too (event times are whole seconds).
  const after = (at: number): boolean =>
    at > observed.observedAt ||
    (at === observed.observedAt && (observed.source === "read" || fromUserEvent(observed)));
  return [...(state.attempts ?? []), ...claimed]
    .filter((a) => a.sentAt > latestWrite && after(a.sentAt))
    .reverse();
}

export type ObservationResult = "duplicate" | "stale" | "ours" | "manual" | "cleared";

export interface ObservedChange {
  eventId: string;
  /** Epoch seconds. */
  eventTime: number;
  status: StatusValue;
}

/** Appends one of our writes, newest last and bounded; the same write twice is kept once. */
export const appendWrite = (writes: RecentWrite[], write: RecentWrite): RecentWrite[] => {
  const last = writes.at(-1);
  if (last !== undefined && last.at === write.at && sameStatus(last.status, write.status)) {
    return writes;
  }
  return [...writes, write].slice(-RECENT_WRITES);
};

/**
 * Applies one `user_change` observation. Events arrive late, twice and out of order:
 * duplicates (by id) and anything older than the newest applied observation are ignored, and
 * so is a late echo of one of our earlier writes. The echo of a write in flight or of an
 * attempt whose call failed confirms that the service applied it. A non-empty status matching
 * nothing of ours is a manual override; an empty one ends any override.
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
  // An echo never precedes its write's second: an earlier event showing the same status is
  // something else (a user's clear looks like a clear of ours).
  const echoes = (written: StatusValue, sentAt: number): boolean =>
    sameStatus(written, status) && change.eventTime >= secondOf(sentAt);
  const attempt = state.attempts?.findLast((a) => echoes(a.status, a.sentAt));
  const claim = state.pending;
  const pending = claim !== undefined && echoes(claim.status, claim.claimedAt);
  if (latest !== undefined && !sameStatus(latest.status, status)) {
    const olderWrite =
      state.recentWrites.some((w) => sameStatus(w.status, status)) ||
      (attempt !== undefined && attempt.sentAt < latest.at);
    // A late echo of an earlier write of ours: it says nothing about the status now.
    // An empty status is also what a user's clear looks like, so time decides for it: one
    // from before our latest write's second is an echo; one from that very second ties with
    // it (tiedWrite) and is kept as the user's, for a read to settle.
    if (
      olderWrite &&
      !pending &&
      (!isEmptyStatus(status) || change.eventTime < secondOf(latest.at))
    ) {
      return { state: seen, result: "stale" };
    }
  }
  const observedAt = Math.max(eventMs, state.actual.observedAt);
  // The echo can beat the sender to the store, or follow a call that failed but was applied:
  // either way the service applied our write, so it is what we last wrote.
  const sentAt = pending ? state.pending?.claimedAt : attempt?.sentAt;
  // Our latest write was a clear: an empty status reported after the service had surely
  // applied it is not its echo but the profile seen later (a user's clear over a newer write).
  const echoOfLatest =
    latest !== undefined &&
    sameStatus(latest.status, status) &&
    !(
      isEmptyStatus(status) &&
      latest.until !== undefined &&
      change.eventTime > secondOf(latest.until)
    );
  if (echoOfLatest || sentAt !== undefined) {
    // A user's change in the echo's own second may have come before or after our write: the
    // user's stays what we believe is showing, and the tie makes the next write read first.
    const tie =
      fromUserEvent(state.actual) &&
      secondOf(state.actual.observedAt) === change.eventTime &&
      !sameStatus(state.actual.status, status);
    const { override: _ended, ...rest } = seen;
    const kept: StatusState = tie ? seen : rest;
    // Recorded unless it is our latest write (or older): a repeat of the latest status is a
    // write of its own, and its time is what tells a tie with a user's change (tiedWrite).
    const known =
      sentAt === undefined ||
      (latest !== undefined && sameStatus(latest.status, status) && latest.at >= sentAt);
    const confirmed: StatusState = known
      ? kept
      : {
          ...kept,
          lastWritten: status,
          recentWrites: appendWrite(kept.recentWrites, {
            status,
            at: sentAt,
            until: eventMs + 999,
          }),
        };
    const attempts = state.attempts?.filter((a) => a !== attempt);
    const { retry, ...withoutRetry } = confirmed;
    // A retry of this very write is done; one for something else stays.
    const keepRetry = retry !== undefined && attempt === undefined ? { retry } : {};
    return {
      state: {
        ...withoutRetry,
        ...keepRetry,
        ...(attempts !== undefined ? { attempts } : {}),
        actual: tie ? state.actual : { status, observedAt, source: "ours" },
      },
      result: "ours",
    };
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
 * Claims a write: other reconciles see it in flight and do not send a different one. A claim
 * whose lease ran out is kept as an attempt, since its sender may have reached the service.
 */
export function claimWrite(state: StatusState, status: StatusValue, now: number): StatusState {
  const stale = state.pending;
  const attempts =
    stale === undefined
      ? state.attempts
      : [...(state.attempts ?? []), { status: stale.status, sentAt: stale.claimedAt }].slice(
          -RECENT_ATTEMPTS,
        );
  return {
    ...state,
    ...(attempts !== undefined ? { attempts } : {}),
    pending: { status, claimedAt: now },
  };
}

/**
 * Releases the claim sent at `sentAt` after its call failed. The write is kept as an attempt:
 * a timeout or an internal error may still have applied it, and its echo must count as ours.
 * A refused write is never echoed, so remembering it costs nothing.
 */
export function releaseWrite(state: StatusState, sentAt: number): StatusState {
  const pending = state.pending;
  if (pending === undefined || pending.claimedAt !== sentAt) return state;
  const { pending: _released, ...rest } = state;
  return {
    ...rest,
    attempts: [...(state.attempts ?? []), { status: pending.status, sentAt }].slice(
      -RECENT_ATTEMPTS,
    ),
  };
}

/**
 * Records one of our writes that the service confirmed; `written` is what it reported back and
 * `sentAt` when we sent it. The write is stamped with its send time, not the time it was
 * recorded: a user change observed after we sent it stays the actual status, and one that
 * happens while the write is being recorded is not mistaken for an old one.
 */
export function recordWrite(
  state: StatusState,
  written: StatusValue,
  now: number,
  sentAt: number = now,
): StatusState {
  const { pending, retry: _retried, ...base } = state;
  // A newer claim (ours ran past its lease) belongs to another reconcile and stays.
  const rest = pending !== undefined && pending.claimedAt > sentAt ? { ...base, pending } : base;
  const recentWrites = appendWrite(state.recentWrites, {
    status: written,
    at: sentAt,
    until: Math.max(now, sentAt),
  });
  // A user's change reported in the second we sent, or later, may have come after the service
  // applied our write (event times are whole seconds; the service applied it somewhere between
  // our send and now). It stays what we believe is showing: surely newer, or a tie (tiedWrite)
  // that a read settles before the next write. A read is exact.
  const observed = state.actual;
  const newerUserChange =
    observed.source === "read"
      ? observed.observedAt > sentAt
      : fromUserEvent(observed) && secondOf(observed.observedAt) >= secondOf(sentAt);
  if (newerUserChange && !sameStatus(observed.status, written)) {
    return { ...rest, lastWritten: written, recentWrites };
  }
  const { override: _gone, ...withoutOverride } = rest;
  return {
    ...withoutOverride,
    lastWritten: written,
    recentWrites,
    actual: {
      status: written,
      observedAt: Math.max(sentAt, state.actual.observedAt),
      source: "ours",
    },
  };
}
