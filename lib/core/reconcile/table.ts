import type { Block, StatusValue } from "../types";
import { EMPTY_STATUS, effectiveStatus, isEmptyStatus, sameStatus } from "../types";
import type { Standing } from "./standing";
import { overrideActive } from "./state";

/*
 * The table of the design (docs/reconcile.md), one pure function: `rule`, what to do with the
 * profile as believed, the block due now and, in restore mode, the standing status. The
 * decision (./decision.ts) reads it with what the stored state adds.
 */

/** A write: a set (expiring at its block's end), or a clear (text, emoji, expiration emptied). */
export type WriteStep = { kind: "set" | "clear"; status: StatusValue; reason: string };

/** What the table of the design says of the profile right now. */
export type Verdict =
  | WriteStep
  | { kind: "leave"; reason: string }
  | { kind: "nothing"; reason: string };

/** What the table is read with: the profile as we believe it, and whose status it is. */
export interface Belief {
  /** The status on the profile. */
  actual: StatusValue;
  /** What we last wrote; `undefined` when we never wrote. */
  lastWritten: StatusValue | undefined;
  /** A manual status the user set; left alone while it is active. */
  override: StatusValue | undefined;
  /** Restore mode: the standing status, shown when no block is; absent in keep mode or none. */
  standing?: Standing | undefined;
}

/**
 * The reconciliation table (docs/reconcile.md). The status is ours only while it equals what
 * we last wrote; anything else the user set is a manual override we leave until it expires or
 * is cleared. In restore mode the standing status is what shows when no block does (it is set
 * back after a block: a restore), and a block shows over it unless the person set it while that
 * block showed.
 */
export function rule(belief: Belief, desired: Block | undefined, now: number): Verdict {
  if (overrideActive(belief.override, now)) return { kind: "leave", reason: "manual override" };
  const actual = effectiveStatus(belief.actual, now);
  const target = targetOf(belief.standing, desired, now);
  if (target !== undefined && sameStatus(actual, target.status)) {
    return { kind: "nothing", reason: "the profile shows what is due" };
  }
  if (isEmptyStatus(actual)) {
    return target ?? { kind: "nothing", reason: "nothing is due and nothing shows" };
  }
  if (belief.lastWritten !== undefined && sameStatus(actual, belief.lastWritten)) {
    return (
      target ?? { kind: "clear", status: { ...EMPTY_STATUS }, reason: "ours shows, nothing is due" }
    );
  }
  // The person's standing status, set before the due block began: the block shows over it.
  const standing = belief.standing?.status;
  if (target !== undefined && standing !== undefined && sameStatus(actual, standing)) return target;
  return { kind: "leave", reason: "manual status" };
}

/**
 * What the profile should show now, as the write that would show it: the due block's status,
 * expiring at its end; in restore mode, the standing status when no block is due, or when the
 * person set it while the due block showed (it wins for the rest of that block).
 */
function targetOf(
  standing: Standing | undefined,
  desired: Block | undefined,
  now: number,
): WriteStep | undefined {
  const want = desiredStatus(desired, now);
  if (want === undefined || desired === undefined) {
    return standing === undefined
      ? undefined
      : { kind: "set", status: standing.status, reason: "the standing status is restored" };
  }
  if (standing !== undefined && standing.since >= desired.start) {
    return { kind: "set", status: standing.status, reason: "the person set it during this block" };
  }
  return { kind: "set", status: want, reason: `the ${desired.kind} block is due` };
}

/** The status a block asks for, or `undefined` when it is over or carries nothing to show. */
function desiredStatus(block: Block | undefined, now: number): StatusValue | undefined {
  if (block === undefined || block.end <= now) return undefined;
  const status = { text: block.text, emoji: block.emoji, expiration: Math.floor(block.end / 1000) };
  // A block ending within the current second would expire on arrival.
  if (status.expiration * 1000 <= now || isEmptyStatus(status)) return undefined;
  return status;
}
