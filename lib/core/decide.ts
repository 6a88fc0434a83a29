import {
  activePending,
  effectiveStatus,
  overrideActive,
  type PendingWrite,
  type StatusState,
  sameStatus,
  secondOf,
  tiedWrite,
  unresolvedAttempts,
} from "./status-state";
import { type Block, EMPTY_STATUS, isEmptyStatus, type StatusValue } from "./types";

/** What reconciliation does with the profile right now. */
export type Decision =
  | { kind: "set"; text: string; emoji: string; expiration: number }
  | { kind: "clear" }
  | { kind: "leave"; reason: string }
  | { kind: "nothing" };

export interface DecideInput {
  /** The block that should show now, if any. */
  desired: Block | undefined;
  /** The status on the profile, as last observed. */
  actual: StatusValue;
  /** What we last wrote; `undefined` when we never wrote. */
  lastWritten: StatusValue | undefined;
  /** A manual status the user set; left alone while it is active. */
  override: StatusValue | undefined;
  /** Epoch ms. */
  now: number;
}

/** The status a block asks for, or `undefined` when it is over or carries nothing to show. */
export function desiredStatus(block: Block | undefined, now: number): StatusValue | undefined {
  if (block === undefined || block.end <= now) return undefined;
  const status = { text: block.text, emoji: block.emoji, expiration: Math.floor(block.end / 1000) };
  // A block ending within the current second would expire on arrival.
  if (status.expiration * 1000 <= now || isEmptyStatus(status)) return undefined;
  return status;
}

/**
 * The reconciliation table of the design. The status is ours only while it equals what we
 * last wrote; anything else the user set is a manual override we leave until it expires or
 * is cleared.
 */
export function decide(input: DecideInput): Decision {
  const { now } = input;
  if (overrideActive(input.override, now)) return { kind: "leave", reason: "manual override" };
  const actual = effectiveStatus(input.actual, now);
  const want = desiredStatus(input.desired, now);
  if (want !== undefined && sameStatus(actual, want)) return { kind: "nothing" };
  if (isEmptyStatus(actual))
    return want === undefined ? { kind: "nothing" } : { kind: "set", ...want };
  if (input.lastWritten !== undefined && sameStatus(actual, input.lastWritten)) {
    return want === undefined ? { kind: "clear" } : { kind: "set", ...want };
  }
  return { kind: "leave", reason: "manual status" };
}

/** The status a decision writes: a clear sends text and emoji empty together, expiration 0. */
export function decisionStatus(decision: Decision): StatusValue | undefined {
  if (decision.kind === "set") {
    return { text: decision.text, emoji: decision.emoji, expiration: decision.expiration };
  }
  if (decision.kind === "clear") return { text: "", emoji: "", expiration: 0 };
  return undefined;
}

/** A decision over the whole stored state; `inFlight` is set while a claimed write is sending. */
export interface StateDecision {
  decision: Decision;
  /** The write in flight: `decision` assumed it lands. */
  inFlight?: PendingWrite;
  /** Decide again once the write in flight is recorded: it may not be the last word. */
  recheck?: boolean;
  /**
   * Read the profile before acting on `decision`, apply the read and decide again (that second
   * decision is final): whether a write is due rests on a belief only a read settles. Either a
   * manual override stands that may be gone (its clear's event lost, or overwritten by a write
   * of ours whose outcome is unknown), or the newest user change ties with our latest write.
   * Never set while no override stands and nothing ties: the common path costs no read.
   */
  readFirst?: boolean;
}

const writes = (decision: Decision): boolean => decisionStatus(decision) !== undefined;

/**
 * Decides from the stored state. While a claimed write is in flight its status is what the
 * profile is about to show, so the decision is made against it: a cancel that arrives
 * meanwhile yields a clear to send after it, and so does a user change observed after the
 * claim; an override older than the claim is overwritten by it. When an attempt's outcome is
 * unknown, a decision that writes nothing is checked again as if the attempt had been applied,
 * so a cancel still clears a status the service may have applied despite the failed call.
 * A stored override is a belief: when a write would be due were it gone, the decision asks for
 * a read first (`readFirst`), and so does a user change that ties with our latest write.
 */
export function decideForState(
  state: StatusState,
  desired: Block | undefined,
  now: number,
  leaseMs: number,
): StateDecision {
  const override = overrideActive(state.override?.status, now) ? state.override : undefined;
  const pending = activePending(state, now, leaseMs);
  if (pending !== undefined) {
    const observed = state.actual;
    const newerObservation = observed.observedAt > pending.claimedAt;
    // A user's change in the claim's own second may come before or after the write in flight.
    const tied =
      (observed.source === "manual" || observed.source === "expired") &&
      secondOf(observed.observedAt) === secondOf(pending.claimedAt) &&
      !sameStatus(observed.status, pending.status);
    // An override the user set in an earlier second is overwritten by the write in flight.
    const overwritten =
      override !== undefined && secondOf(override.since) < secondOf(pending.claimedAt);
    const decision = decide({
      desired,
      actual: newerObservation ? observed.status : pending.status,
      lastWritten: pending.status,
      override: overwritten ? undefined : override?.status,
      now,
    });
    const target = decisionStatus(decision);
    const differs = target !== undefined && !sameStatus(target, pending.status);
    return { decision, inFlight: pending, recheck: newerObservation || differs || tied };
  }
  const base = decide({
    desired,
    actual: state.actual.status,
    lastWritten: state.lastWritten,
    override: override?.status,
    now,
  });
  const tie = tiedWrite(state);
  if (writes(base))
    return tie === undefined ? { decision: base } : { decision: base, readFirst: true };
  if (override !== undefined) {
    // What the profile may show instead of the override: nothing (the user cleared it and the
    // event was lost), our write that tied with it, or a write of ours whose outcome is unknown.
    // A lost clear is looked for once per block: at the first decision after the block began
    // that finds the override last seen before it (a read that finds it restamps it).
    const lostClear = desired !== undefined && desired.start > override.since;
    const instead = [
      ...(lostClear ? [{ actual: EMPTY_STATUS, lastWritten: state.lastWritten }] : []),
      ...(tie === undefined ? [] : [{ actual: tie.status, lastWritten: tie.status }]),
      ...unresolvedAttempts(state).map((a) => ({ actual: a.status, lastWritten: a.status })),
    ];
    const due = instead.some((seen) =>
      writes(decide({ desired, ...seen, override: undefined, now })),
    );
    return due ? { decision: base, readFirst: true } : { decision: base };
  }
  if (tie !== undefined) {
    // Our write may have come last: then a clear (or another set) is due.
    const ours = decide({
      desired,
      actual: tie.status,
      lastWritten: tie.status,
      now,
      override: undefined,
    });
    if (writes(ours)) return { decision: ours, readFirst: true };
  }
  for (const attempt of unresolvedAttempts(state)) {
    const applied = decide({
      desired,
      actual: attempt.status,
      lastWritten: attempt.status,
      override: undefined,
      now,
    });
    if (decisionStatus(applied) !== undefined) return { decision: applied };
  }
  return { decision: base };
}
