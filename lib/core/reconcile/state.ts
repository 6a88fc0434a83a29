import {
  EMPTY_STATUS,
  effectiveStatus,
  isEmptyStatus,
  type StatusValue,
  sameStatus,
} from "../types";
import { type Standing, type StandingContext, standingAfter } from "./standing";

/*
 * The status state the reconcile keeps for each user: what was observed of the profile and the
 * records of our own writes. Then the pure transitions on it around a write: a read of the
 * profile (`applyRead`), a write claimed (`claimWrite`), recorded once the service answered
 * (`recordWrite`), or released when its call failed (`releaseWrite`). Last, what only a read
 * settles: a write tied with a user's change, attempts of unknown outcome. A `user_change` is
 * applied in ./user-change.ts; what is due next is decided from this state in ./decision.ts.
 */

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
   * since (an empty status). Observed in every mode (./standing.ts); with the rule
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

export const RECENT_WRITES = 8;
export const RECENT_ATTEMPTS = 4;
export const RECENT_EVENT_IDS = 32;

export const initialStatusState = (): StatusState => ({
  actual: { status: { ...EMPTY_STATUS }, observedAt: 0, source: "unknown" },
  recentWrites: [],
  recentEventIds: [],
});

export const overrideActive = (override: StatusValue | undefined, now: number): boolean =>
  override !== undefined && !isEmptyStatus(effectiveStatus(override, now));

/** The whole second of an epoch-ms instant: the resolution of a `user_change`'s `event_time`. */
export const secondOf = (ms: number): number => Math.floor(ms / 1000);

/** Whether one of our writes may have been applied in `second` (its send to its confirmation). */
const spansSecond = (write: RecentWrite, second: number): boolean =>
  secondOf(write.at) <= second && second <= secondOf(write.until ?? write.at);

/**
 * The standing status as known. Items stored before `standing` existed hold it as an override
 * with no expiry (what the person set, as observed then).
 */
export function knownStanding(state: Observed): Standing | undefined {
  const override = state.override;
  return state.standing ?? (override?.status.expiration === 0 ? override : undefined);
}

/** What a sighting of the profile is judged against, for the standing status (./standing.ts). */
export function standingContext(state: StatusState): StandingContext {
  const { actual, pending } = state;
  const latest = state.recentWrites.at(-1);
  // A write of ours may have landed after the belief when it was applied in its second or later
  // (a read is exact to the millisecond). As the decision does, a user's change seen after a
  // write was sent is taken as newer than it.
  const exact = actual.source === "read";
  const after = (ms: number, sent = false) =>
    exact
      ? ms > actual.observedAt || (sent && ms === actual.observedAt)
      : secondOf(ms) >= secondOf(actual.observedAt);
  const unrecorded = [
    ...(state.attempts ?? []).filter((a) => after(a.sentAt, true)),
    ...(pending !== undefined && after(pending.claimedAt, true) ? [pending] : []),
  ];
  return {
    known: knownStanding(state),
    actual,
    latest,
    unrecorded: unrecorded.map((w) => w.status),
    landed: latest !== undefined && after(latest.until ?? latest.at) ? latest.status : undefined,
    ours: [
      ...state.recentWrites.map((w) => w.status),
      ...(state.attempts ?? []).map((a) => a.status),
      ...(pending === undefined ? [] : [pending.status]),
      ...(state.lastWritten === undefined ? [] : [state.lastWritten]),
    ],
  };
}

/** The state with `standing` as the standing status (none: without the field). */
export function withStanding<S extends Observed>(state: S, standing: Standing | undefined): S {
  const { standing: _was, ...rest } = state;
  return (standing === undefined ? rest : { ...rest, standing }) as S;
}

/** Whether the observation is a user's change reported by an event (whole seconds, not exact). */
export const fromUserEvent = (observation: Observation): boolean =>
  observation.source === "manual" || observation.source === "expired";

/** Appends one of our writes, newest last and bounded; the same write twice is kept once. */
export const appendWrite = (writes: RecentWrite[], write: RecentWrite): RecentWrite[] => {
  const last = writes.at(-1);
  if (last !== undefined && last.at === write.at && sameStatus(last.status, write.status)) {
    return writes;
  }
  return [...writes, write].slice(-RECENT_WRITES);
};

/** What reading the profile gave: the status it shows (at `at`, epoch ms), or no answer. */
export type ProfileRead =
  | { kind: "shown"; status: StatusValue; at: number }
  /** The read failed for a reason the write itself would report: act on what events said. */
  | { kind: "unavailable" };

/** What a read of the profile showed: one of our writes, nothing, or a status the user set. */
export type ReadResult = "ours" | "empty" | "manual";

/**
 * Applies what a read of the profile showed at `readAt` (epoch ms). A read is exact and never
 * late: it settles what events cannot (a lost clear, a same-second tie, a write whose outcome is
 * unknown), and an older `user_change` arriving after it is stale. A status matching one of our
 * writes, attempts or the pending write is ours (and what we last wrote); an empty or expired
 * one ends any override, and the standing status unless an expiry explains it (a clear whose
 * event was lost); anything else is a manual status, even when its event was lost, and the
 * standing status when it has no expiry (first seen at the read: when the person set it, the
 * read cannot tell, so a block that began before the read does not show over it).
 */
export function applyRead(
  state: StatusState,
  shown: StatusValue,
  readAt: number,
): { state: StatusState; result: ReadResult } {
  const reported = { ...shown, expiration: isEmptyStatus(shown) ? 0 : shown.expiration };
  const sighting = { status: effectiveStatus(reported, readAt), at: readAt, by: "read" as const };
  const standing = standingAfter(standingContext(state), sighting);
  const applied = readInto(state, shown, readAt);
  return { ...applied, state: withStanding(applied.state, standing) };
}

/** `applyRead` but for the standing status. */
function readInto(
  state: StatusState,
  shown: StatusValue,
  readAt: number,
): { state: StatusState; result: ReadResult } {
  const observedAt = Math.max(readAt, state.actual.observedAt);
  const status = effectiveStatus(
    { ...shown, expiration: isEmptyStatus(shown) ? 0 : shown.expiration },
    readAt,
  );
  const { override: _ended, ...withoutOverride } = state;
  if (isEmptyStatus(status)) {
    return {
      state: {
        ...withoutOverride,
        actual: { status: { ...EMPTY_STATUS }, observedAt, source: "read" },
      },
      result: "empty",
    };
  }
  const same = (s: StatusValue): boolean => sameStatus(s, status);
  const attempt = state.attempts?.findLast((a) => same(a.status));
  const pending =
    state.pending !== undefined && same(state.pending.status) ? state.pending : undefined;
  const written =
    (state.lastWritten !== undefined && same(state.lastWritten)) ||
    state.recentWrites.some((w) => same(w.status));
  if (attempt === undefined && pending === undefined && !written) {
    return {
      state: {
        ...state,
        actual: { status, observedAt, source: "read" },
        override: { status, since: readAt },
      },
      result: "manual",
    };
  }
  // An attempt or an abandoned pending write the profile shows was applied: record it as a
  // write, so its late echo is ours too.
  const sentAt = attempt?.sentAt ?? pending?.claimedAt;
  const latest = state.recentWrites.at(-1);
  // Kept newest last: one sent before our latest write only becomes what we last wrote.
  const confirmed =
    sentAt !== undefined && (latest === undefined || (!same(latest.status) && sentAt > latest.at));
  const recentWrites = confirmed
    ? appendWrite(state.recentWrites, { status, at: sentAt, until: readAt })
    : state.recentWrites;
  const attempts = confirmed ? state.attempts?.filter((a) => a !== attempt) : state.attempts;
  return {
    state: {
      ...withoutOverride,
      ...(attempts !== undefined ? { attempts } : {}),
      lastWritten: status,
      recentWrites,
      actual: { status, observedAt, source: "read" },
    },
    result: "ours",
  };
}

/** What a read found that changes what we believed (worth a log line). */
export type ReadFinding = "manual_found" | "override_gone";

/** Whether a read changed what we believed about a manual override. */
export function findingOf(
  before: StatusState,
  result: ReadResult,
  now: number,
): ReadFinding | undefined {
  const override = overrideActive(before.override?.status, now);
  if (result === "manual" && !override) return "manual_found";
  // Its clear's user_change was lost, or our write came after it in the same second.
  if (result !== "manual" && override) return "override_gone";
  return undefined;
}

/**
 * Claims a write: other reconciles see it in flight and do not send a different one. A claim
 * whose lease ran out is kept as an attempt, since its sender may have reached the service.
 */
export function claimWrite(state: StatusState, status: StatusValue, now: number): StatusState {
  const pending = state.pending;
  const attempts =
    pending === undefined
      ? state.attempts
      : [...(state.attempts ?? []), { status: pending.status, sentAt: pending.claimedAt }].slice(
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
  // our send and now). It stays what we believe is showing: surely newer, or a tie that a read
  // settles before the next write (./decision.ts). A read is exact.
  const actual = state.actual;
  // So is the echo of another write of ours (one whose call failed) from a later second than
  // this one was sent: that write was applied after this one was sent.
  const newerUserChange =
    actual.source === "read"
      ? actual.observedAt > sentAt
      : (fromUserEvent(actual) && secondOf(actual.observedAt) >= secondOf(sentAt)) ||
        (actual.source === "ours" && secondOf(actual.observedAt) > secondOf(sentAt));
  if (newerUserChange && !sameStatus(actual.status, written)) {
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

/**
 * Our latest write when the newest observation is a user's change in a second in which the
 * service may have applied it: event times are whole seconds, so only a read tells which came last.
 */
export function tiedWrite(state: StatusState): RecentWrite | undefined {
  const { actual } = state;
  const latest = state.recentWrites.at(-1);
  if (latest === undefined || !fromUserEvent(actual)) return undefined;
  if (sameStatus(latest.status, actual.status)) return undefined;
  return spansSecond(latest, secondOf(actual.observedAt)) ? latest : undefined;
}

/**
 * Attempts that may be on the profile, newest first: sent after our newest applied write and
 * after the newest observation, so nothing we know of says what happened to them. The pending
 * write counts too once its lease ran out: its sender may have died after the service applied it.
 */
export function unresolvedAttempts(state: StatusState): AttemptedWrite[] {
  const latestWrite = state.recentWrites.at(-1)?.at ?? Number.NEGATIVE_INFINITY;
  const { actual, pending } = state;
  const abandoned =
    pending === undefined ? [] : [{ status: pending.status, sentAt: pending.claimedAt }];
  // Sent in our read's millisecond, or at the start of a user change's second: maybe after it.
  const after = (at: number): boolean =>
    at > actual.observedAt ||
    (at === actual.observedAt && (actual.source === "read" || fromUserEvent(actual)));
  return [...(state.attempts ?? []), ...abandoned]
    .filter((a) => a.sentAt > latestWrite && after(a.sentAt))
    .reverse();
}
