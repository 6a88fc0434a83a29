import type { StatusState } from "../records";
import {
  effectiveStatus,
  isEmptyStatus,
  type StatusValue,
  sameStatus,
  type UserChange,
} from "../types";
import {
  appendWrite,
  fromUserEvent,
  RECENT_EVENT_IDS,
  secondOf,
  standingAfter,
  standingContext,
  withStanding,
} from "./state";

/*
 * What a `user_change` event does to the status state (`applyObservation`), and whether it
 * tells anything new at all (`nothingNewIn`), for the events endpoint to skip what does not.
 * Last, the same recognition of our own statuses for a read (`showsOurStatus`).
 */

export type ObservationResult = "duplicate" | "stale" | "ours" | "manual" | "cleared";

/** A `user_change` as the state takes it (`eventTime` in epoch seconds). */
export type ObservedChange = Pick<UserChange, "eventId" | "eventTime" | "status">;

/**
 * Applies one `user_change` observation. Events arrive late, twice and out of order:
 * duplicates (by id) and anything older than the newest applied observation are ignored, and
 * so is a late echo of one of our earlier writes. The echo of a write in flight or of an
 * attempt whose call failed confirms that the service applied it. A non-empty status matching
 * nothing of ours is a manual override, and the standing status when it has no expiry; an empty
 * one ends any override, and the standing status when the person cleared it by hand.
 */
export function applyObservation(
  state: StatusState,
  change: ObservedChange,
): { state: StatusState; result: ObservationResult } {
  const applied = observe(state, change);
  const { result } = applied;
  // Event times have whole-second resolution, so only a strictly earlier second is late.
  const late = change.eventTime < secondOf(state.actual.observedAt);
  // Our own writes' echoes say nothing of what the person set.
  if (result === "duplicate" || result === "ours" || (result === "stale" && !late)) return applied;
  const status = { ...change.status, ...(isEmptyStatus(change.status) ? { expiration: 0 } : {}) };
  const sighting = { status, at: change.eventTime * 1000, by: late ? "late" : "event" } as const;
  const context = standingContext(state);
  const standing = standingAfter(context, sighting);
  // A late event is stale, unless it told something of the standing status.
  if (late && standing === context.known) return applied;
  const next = withStanding(applied.state, standing);
  return { state: next, result: late ? "manual" : result };
}

/** `applyObservation` but for the standing status. */
function observe(
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
  // something else (a user's clear looks like a clear of ours). Nor does it follow a user's
  // change seen in a later second than the write was sent: that change is taken as newer than
  // the write (./decision.ts), so what comes after it is the user's too.
  const userSecond = fromUserEvent(state.actual) ? secondOf(state.actual.observedAt) : undefined;
  const echoes = (written: StatusValue, sentAt: number): boolean =>
    sameStatus(written, status) &&
    change.eventTime >= secondOf(sentAt) &&
    !(userSecond !== undefined && userSecond > secondOf(sentAt) && change.eventTime > userSecond);
  const attempt = state.attempts?.findLast((a) => echoes(a.status, a.sentAt));
  const pending = state.pending;
  const echoesPending = pending !== undefined && echoes(pending.status, pending.claimedAt);
  if (latest !== undefined && !sameStatus(latest.status, status)) {
    const olderWrite =
      state.recentWrites.some((w) => sameStatus(w.status, status)) ||
      (attempt !== undefined && attempt.sentAt < latest.at);
    // A late echo of an earlier write of ours: it says nothing about the status now.
    // An empty status is also what a user's clear looks like, so time decides for it: one
    // from before our latest write's second is an echo; one from that very second ties with
    // it (a tie, ./decision.ts) and is kept as the user's, for a read to settle.
    if (
      olderWrite &&
      !echoesPending &&
      (!isEmptyStatus(status) || change.eventTime < secondOf(latest.at))
    ) {
      return { state: seen, result: "stale" };
    }
  }
  const observedAt = Math.max(eventMs, state.actual.observedAt);
  // The echo can beat the sender to the store, or follow a call that failed but was applied:
  // either way the service applied our write, so it is what we last wrote.
  const sentAt = echoesPending ? pending?.claimedAt : attempt?.sentAt;
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
    // write of its own, and its time is what tells a tie with a user's change.
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
 * Whether a `user_change` tells nothing the status state does not already hold (a `duplicate`
 * or an `echo` of ours; undefined when it tells something), so it needs
 * no recording and no reconcile (and, being a no-op, is safe to handle any number of times):
 * - a redelivery the state already recorded;
 * - the echo of a write of ours the state already records as showing: applying it would change
 *   nothing but the list of recent event ids;
 * - the echo of the write we claimed and are sending: its sender records the write once the
 *   service answers (or, if it dies, leaves an attempt a profile read resolves), as the echo
 *   would, so the echo only tells it sooner. Not while a user's change is the newest
 *   observation: the echo's second then decides a tie, and is kept;
 * - the service clearing, at its expiration, a status of ours the state records as showing: an
 *   expiry we planned, which the state already counts as cleared from that second on
 *   (`effectiveStatus`), with nothing of ours in flight and no override.
 */
export function nothingNewIn(
  state: StatusState,
  change: ObservedChange,
): "duplicate" | "echo" | undefined {
  const observed = applyObservation(state, change);
  if (observed.result === "duplicate") return "duplicate";
  if (observed.result === "ours") {
    const { recentEventIds: _after, ...after } = observed.state;
    const { recentEventIds: _before, ...before } = state;
    return deepEqual(after, before) || echoesOurClaim(state, change) ? "echo" : undefined;
  }
  if (observed.result !== "cleared") return undefined;
  return plannedExpiry(state, change) ? "echo" : undefined;
}

/** The service cleared, at its expiration, the status of ours the state records as showing. */
function plannedExpiry(state: StatusState, change: ObservedChange): boolean {
  const written = state.lastWritten;
  return (
    isEmptyStatus(change.status) &&
    written !== undefined &&
    written.expiration > 0 &&
    change.eventTime >= written.expiration &&
    state.actual.source === "ours" &&
    sameStatus(state.actual.status, written) &&
    state.pending === undefined &&
    state.override === undefined &&
    (state.attempts ?? []).length === 0
  );
}

/** The change shows the status of our claimed write, from the claim's second on. */
function echoesOurClaim(state: StatusState, change: ObservedChange): boolean {
  const claim = state.pending;
  return (
    claim !== undefined &&
    sameStatus(claim.status, change.status) &&
    change.eventTime >= secondOf(claim.claimedAt) &&
    state.actual.source !== "manual" &&
    state.actual.source !== "expired"
  );
}

/** Structural equality of JSON-like values, whatever the order of object keys. */
function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) =>
    deepEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
  );
}

/**
 * Whether a status read from the profile is one Statuspilot wrote: our last write, a recent one,
 * an attempt whose outcome is unknown, or one in flight (a disconnect clears only such a status,
 * or one in flight). Text and emoji identify a status; its expiration does not (the person may
 * only have changed when it clears). An empty or expired status is nobody's.
 */
export function showsOurStatus(state: StatusState, shown: StatusValue, readAt: number): boolean {
  const status = effectiveStatus(shown, readAt);
  if (isEmptyStatus(status)) return false;
  const ours = [
    state.lastWritten,
    state.pending?.status,
    ...state.recentWrites.map((w) => w.status),
    ...(state.attempts ?? []).map((a) => a.status),
  ];
  return ours.some((s) => s !== undefined && s.text === status.text && s.emoji === status.emoji);
}
