import {
  applyObservation,
  type ObservedChange,
  type StatusState,
  sameStatus,
  secondOf,
} from "./status-state";
import { isEmptyStatus } from "./types";

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
