import { effectiveStatus, overrideActive, sameStatus } from "./status-state";
import { type Block, isEmptyStatus, type StatusValue } from "./types";

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
