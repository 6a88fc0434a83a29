import type { StatusState } from "../records";
import { type StatusValue, sameStatus } from "../types";
import { appendWrite, fromUserEvent, RECENT_ATTEMPTS, secondOf } from "./state";

/*
 * What became of one of our writes, once its call returned: the service applied it
 * (`recordWrite`, with what it reported back), or the call failed (`releaseWrite`: its claim is
 * kept as an attempt, since it may have been applied all the same). The claim itself is made
 * by the decision (./state.ts, `claimWrite`).
 */

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
