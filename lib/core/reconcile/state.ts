import type {
  AttemptedWrite,
  Observation,
  Observed,
  RecentWrite,
  Standing,
  StatusState,
} from "../records";
import {
  EMPTY_STATUS,
  effectiveStatus,
  isEmptyStatus,
  type StatusValue,
  sameStatus,
} from "../types";

/*
 * The status state the reconcile keeps for each user (its shape: StatusState in ../records.ts):
 * what was observed of the profile, and the records of our own writes. Here, top to bottom, the
 * pure transitions a reconcile makes on it: the standing status a sighting of the profile
 * leaves (`standingAfter`: the status the person set with no expiry, set back after blocks in
 * restore mode), a read of the profile (`applyRead`), a write claimed (`claimWrite`), and what
 * only a read settles: a write tied with a user's change, attempts of unknown outcome. A
 * `user_change` is applied in ./user-change.ts, the answer to a write in ./write-outcome.ts;
 * what is due next is decided from this state in ./decision.ts.
 */

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

/** What a sighting is judged against: what the state knew before it. */
export interface StandingContext {
  /** The standing status as known (a clear by hand included). */
  known: Standing | undefined;
  /** The status believed showing, and since when. */
  actual: { status: StatusValue; observedAt: number };
  /** Our latest applied write, with the span of seconds in which the service applied it. */
  latest: { status: StatusValue; at: number; until?: number } | undefined;
  /** Writes of ours not recorded yet that may have landed after that belief (in flight, tried). */
  unrecorded: StatusValue[];
  /** Our latest write, when it may have landed after that belief (in its second or later). */
  landed: StatusValue | undefined;
  /** Every status of ours that may still echo: applied, attempted, or in flight. */
  ours: StatusValue[];
}

/**
 * One sighting of the profile: a `user_change` (`event`), one older than what was observed
 * since (`late`), or a read; `status` as reported (expiration 0 when empty), `at` epoch ms.
 */
export interface Sighting {
  status: StatusValue;
  at: number;
  by: "event" | "late" | "read";
}

/**
 * The standing status as known. Items stored before `standing` existed hold it as an override
 * with no expiry (what the person set, as observed then).
 */
export function knownStanding(state: Observed): Standing | undefined {
  const override = state.override;
  return state.standing ?? (override?.status.expiration === 0 ? override : undefined);
}

/** What a sighting of the profile is judged against, for the standing status (`standingAfter`). */
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

/** The status to set back after blocks: the standing one, unless the person cleared it. */
export function standingOf(known: Standing | undefined): Standing | undefined {
  return known === undefined || isEmptyStatus(known.status) ? undefined : known;
}

/**
 * The standing status after `seen`. A status with no expiry that is not ours becomes it (found
 * again by a read while it shows, it keeps its time); a late one only says when the person set
 * the one a read found. An empty profile is a clear by hand, unless
 * an expiry explains it or it falls in the second of our latest write (a tie the read before the
 * next write settles); a late clear cannot be told from an expiry and changes nothing. A status
 * with an expiry is an override and changes nothing either.
 */
export function standingAfter(context: StandingContext, seen: Sighting): Standing | undefined {
  const { known, actual } = context;
  const status = seen.status;
  const from = seen.by === "read" ? { from: Math.min(seen.at, actual.observedAt) } : {};
  if (!isEmptyStatus(status)) {
    if (status.expiration !== 0 || context.ours.some((s) => sameStatus(s, status))) return known;
    if (seen.by === "late") return lateSet(known, status, seen.at);
    // A read finding it again while it is believed showing tells nothing new: it keeps its time.
    // An event is the person setting it (again, perhaps over a write of ours): from then on.
    const again = known !== undefined && sameStatus(known.status, status);
    if (seen.by === "read" && again && sameStatus(actual.status, status)) return known;
    return { status, since: seen.at, ...from };
  }
  if (seen.by === "late" || standingOf(known) === undefined) return known;
  if (emptiedByExpiry(context, seen)) return known;
  const latest = context.latest;
  const second = secondOf(seen.at);
  const tie =
    seen.by === "event" &&
    latest !== undefined &&
    secondOf(latest.at) <= second &&
    second <= secondOf(latest.until ?? latest.at);
  return tie ? known : { status: { ...EMPTY_STATUS }, since: seen.at, ...from };
}

/**
 * A late `user_change` setting `status` at `at` dates the standing status a read found, when it
 * falls in the window the read left open. Otherwise it says nothing: what showed between it and
 * now is not known (the person may have cleared it, in an event as late).
 */
function lateSet(
  known: Standing | undefined,
  status: StatusValue,
  at: number,
): Standing | undefined {
  const found = known?.from;
  const dates =
    known !== undefined &&
    found !== undefined &&
    sameStatus(known.status, status) &&
    secondOf(at) >= secondOf(found) &&
    at <= known.since;
  return dates ? { status, since: at } : known;
}

/**
 * Whether the profile's being empty at `at` is explained without a clear by hand: a clear of
 * ours may have landed after the belief, or of what may have been showing a status has expired
 * by then, or none was showing anything.
 */
function emptiedByExpiry(context: StandingContext, { at, by }: Sighting): boolean {
  const { actual, landed, unrecorded } = context;
  // A read cannot tell a write whose call failed from one never applied: such writes rarely are.
  const ours = [...(landed === undefined ? [] : [landed]), ...(by === "event" ? unrecorded : [])];
  if (ours.some(isEmptyStatus)) return true;
  const shown = [actual.status, ...ours].filter((s) => !isEmptyStatus(s));
  return shown.length === 0 || shown.some((s) => isEmptyStatus(effectiveStatus(s, at)));
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
