import type { PendingWrite, Standing, StatusRecord, StatusState } from "../records";
import type { Standing as StandingMode } from "../rules";
import { desiredAt } from "../timeline";
import type { Block, StatusValue } from "../types";
import { EMPTY_STATUS, effectiveStatus, isEmptyStatus, sameStatus } from "../types";
import {
  applyRead,
  claimWrite,
  findingOf,
  fromUserEvent,
  knownStanding,
  overrideActive,
  type ProfileRead,
  type ReadFinding,
  secondOf,
  standingOf,
  tiedWrite,
  unresolvedAttempts,
} from "./state";
import { withSchedule } from "./wake-up";

/*
 * The reconcile decision, whole: one pure function, `decide`. In: the status record as stored
 * (what was observed of the profile and the records of our writes: its StatusState, whose
 * transitions are in ./state.ts), a read of the profile made just now (only after a `read`
 * step), the desired timeline and the clock. Out: the block due now, the record to keep (its
 * next wake-up, the claim of the write it sends) and one step for the status, with its reason.
 * The loop (lib/app/status/reconcile.ts) decides only a wait for the rate budget's slot.
 * Top to bottom: input and output; `decide` and its step; what the stored state adds to the
 * table of the design (`dueNow`); the table itself (`rule`).
 */

/** How the user and the deployment shape the decision. */
export interface ReconcilePolicy {
  /** The user paused automatic statuses: nothing is ever written. */
  paused: boolean;
  /** How long a claimed write blocks other writes of the same user. */
  leaseMs: number;
  /** Read the profile before every write, not only when the decision rests on a belief. */
  verifyBeforeWrite: boolean;
  /** While a write is in flight, a different decision is looked at again after this long. */
  inFlightRecheckMs: number;
  /**
   * The user's rule for a status they set with no expiry: `keep` (absent: as before) or
   * `restore`: blocks show over it and it is set back after them (docs/reconcile.md).
   */
  standing?: StandingMode;
}

/** What the decision is made from. */
export interface Situation {
  /** The status record as stored: its `state` holds what was observed and what we wrote. */
  record: StatusRecord;
  /** What reading the profile showed just now: only after a `read` step. */
  read?: ProfileRead;
  /**
   * When a write this decision gives is claimed, and so stamped as sent (epoch ms): after a
   * read, no earlier than its answer. Absent: `now`.
   */
  claimAt?: number;
  /** The desired timeline: the block due now is the one showing at `now`. */
  timeline: Block[];
  /** Epoch ms. */
  now: number;
  policy: ReconcilePolicy;
}

/** The next step for the status. `found`: what a read found that changes what we believed. */
export type StatusStep =
  /** Claim the write on the record (a versioned write), then send it. */
  | (WriteStep & { found?: ReadFinding })
  /** Nothing is sent: a manual status stands, the user paused, or the service refused it. */
  | { kind: "leave"; reason: string; found?: ReadFinding }
  /** Nothing is due: the profile shows what it should, or a write in flight covers it. */
  | { kind: "nothing"; reason: string; found?: ReadFinding }
  /** Read the profile, then decide again with what it showed (that decision never reads). */
  | { kind: "read"; reason: string }
  /** Come back at `at`; `enqueue` when the loop must put a message on the queue for it. */
  | { kind: "wait"; at: number; code: string; enqueue: boolean }
  /** A final auth error stopped this user's service calls until they authorise again. */
  | { kind: "needs_reauth"; code: string };

/** What the decision gives. */
export interface Decision {
  /** The block due now, if any. */
  desired: Block | undefined;
  /**
   * The record the step acts on, with its next wake-up: its state has the read applied, a
   * passed retry dropped (unless a write goes: its count paces the backoff), the write in
   * flight marked for a recheck, or the write this step sends claimed (at `claimAt`).
   */
  record: StatusRecord;
  /** Whether `record` differs from the stored one: store it (a write always does, to claim it). */
  changed: boolean;
  status: StatusStep;
}

/** The next step, from the situation as a whole. */
export function decide(situation: Situation): Decision {
  const record = situation.record;
  const desired = desiredAt(situation.timeline, situation.now);
  const step = statusStep(record.state, desired, situation);
  const status = step.status;
  if (status.kind === "read" || status.kind === "needs_reauth") {
    return { desired, record, changed: false, status };
  }
  const next = withSchedule(
    { ...record, state: step.state },
    situation.timeline,
    situation.now,
    situation.policy.standing,
  );
  if (status.kind === "set" || status.kind === "clear") {
    // Claimed on the record (one versioned put): other reconciles see it in flight.
    const claimAt = situation.claimAt ?? situation.now;
    const state = claimWrite(next.rec.state, status.status, claimAt);
    return { desired, record: { ...next.rec, state }, changed: true, status };
  }
  const changed = step.state !== record.state || next.changed;
  return { desired, record: next.rec, changed, status };
}

type Stepped = { state: StatusState; status: StatusStep };

const VERIFY = "every write reads the profile first";
// A block's set hides the standing status and the restore puts it back: both rest on what the
// profile shows, which a lost or late user_change would hide.
const RESTORE_READS = "in restore mode every write reads the profile first";

/** The status's step, and the state it acts on. */
function statusStep(
  state: StatusState,
  desired: Block | undefined,
  { read, now, policy }: Situation,
): Stepped {
  const stopped = state.needsReauth;
  if (stopped !== undefined) return { state, status: { kind: "needs_reauth", code: stopped.code } };
  if (policy.paused) return settle(state, { kind: "leave", reason: "paused" }, now, undefined);
  const mode = policy.standing ?? "keep";
  const due = dueNow(state, desired, now, policy.leaseMs, mode);
  const pending = due.pending;
  if (pending !== undefined) {
    // The write in flight is what this reconcile would send: it is its sender's job.
    if (due.recheck !== true) return { state, status: whileInFlight(due.verdict) };
    // Something else is due once the write in flight lands: its sender decides again right
    // after recording it, and a message a moment later covers a sender that died.
    const marked =
      pending.recheck === true ? state : { ...state, pending: { ...pending, recheck: true } };
    const at = now + policy.inFlightRecheckMs;
    return { state: marked, status: { kind: "wait", at, code: "write_in_flight", enqueue: true } };
  }
  if (!writes(state, due.verdict) && due.readFirst === undefined) {
    return settle(state, due.verdict, now, undefined);
  }
  const retry = state.retry;
  if (retry !== undefined && retry.at > now) {
    // Honour Retry-After, backoff and the rate budget even when an event asks for one sooner.
    return { state, status: { kind: "wait", at: retry.at, code: retry.code, enqueue: false } };
  }
  if (read === undefined) {
    const always = policy.verifyBeforeWrite
      ? VERIFY
      : mode === "restore"
        ? RESTORE_READS
        : undefined;
    const reason = due.readFirst ?? always;
    if (reason !== undefined) return { state, status: { kind: "read", reason } };
  }
  if (read?.kind === "shown") {
    // What the read showed is final: a second read would show the same.
    const applied = applyRead(state, read.status, read.at);
    const found = findingOf(state, applied.result, now);
    const after = dueNow(applied.state, desired, now, policy.leaseMs, mode);
    return act(applied.state, after.verdict, now, found);
  }
  return act(state, due.verdict, now, undefined);
}

/** Whether the verdict writes a status the service has not refused before. */
const writes = (state: StatusState, verdict: Verdict): verdict is WriteStep =>
  "status" in verdict &&
  !(state.rejected !== undefined && sameStatus(state.rejected.status, verdict.status));

/** Writes what the verdict asks; otherwise sends nothing and says why. */
function act(state: StatusState, verdict: Verdict, now: number, found?: ReadFinding): Stepped {
  if (!writes(state, verdict)) return settle(state, verdict, now, found);
  return { state, status: { ...verdict, ...(found ? { found } : {}) } };
}

/** A step that sends nothing: the state keeps no retry whose time has passed. */
function settle(state: StatusState, verdict: Verdict, now: number, found?: ReadFinding): Stepped {
  const { retry, ...rest } = state;
  const settled = retry === undefined || retry.at > now ? state : rest;
  const also = found ? { found } : {};
  // A write was due, but the service refused this very status before.
  if ("status" in verdict) {
    const reason = `the service refused this status (${state.rejected?.code})`;
    return { state: settled, status: { kind: "leave", reason, ...also } };
  }
  return { state: settled, status: { ...verdict, ...also } };
}

/** While a write in flight sends what is due: nothing more (a leave says why). */
const whileInFlight = (verdict: Verdict): StatusStep =>
  verdict.kind === "leave"
    ? verdict
    : { kind: "nothing", reason: "the write in flight sends what is due" };

// ---- What the stored state adds to the table --------------------------------------------------

/** The table's verdict over the whole stored state. */
export interface Due {
  verdict: Verdict;
  /** The write in flight (claimed, inside its lease): `verdict` assumed it lands. */
  pending?: PendingWrite;
  /** Decide again once the write in flight is recorded: it may not be the last word. */
  recheck?: boolean;
  /**
   * Why the profile must be read before acting on `verdict`: a manual override stands that may
   * be gone (its clear's event lost, or overwritten by a write of ours whose outcome is
   * unknown), or the newest user change ties with our latest write. Else no read is needed.
   */
  readFirst?: string;
}

const TIE = "a user's change ties with our latest write";
const OVERRIDE_MAY_BE_GONE = "a manual override stands that may be gone";

/** The belief that a status of ours shows (with the standing status, in restore mode). */
const ours = (status: StatusValue, standing: Standing | undefined): Belief => ({
  actual: status,
  lastWritten: status,
  override: undefined,
  standing,
});

/**
 * The verdict over the stored state. A pending write (inside its lease) is what the profile is
 * about to show: the table is read against it (a cancel or a user change meanwhile yields a write
 * after it; an override older than the claim is overwritten). A verdict that writes nothing is
 * checked again as if each attempt of unknown outcome had been applied. A stored override is a
 * belief: when a write would be due were it gone, the profile is read first, as on a tie. In
 * restore mode the standing status joins every belief; a status set with no expiry is it, not an
 * override: blocks show over it.
 */
export function dueNow(
  state: StatusState,
  desired: Block | undefined,
  now: number,
  leaseMs: number,
  mode: StandingMode = "keep",
): Due {
  const restore = mode === "restore";
  const standing = restore ? standingOf(knownStanding(state)) : undefined;
  const stands = (o: StatusState["override"]): boolean =>
    o !== undefined && overrideActive(o.status, now) && !(restore && o.status.expiration === 0);
  const override = stands(state.override) ? state.override : undefined;
  // What may show instead of what we believe: a tied write of ours, or one of unknown outcome.
  const tie = tiedWrite(state);
  const attempts = unresolvedAttempts(state);
  const { actual, pending } = state;
  if (pending !== undefined && pending.claimedAt + leaseMs > now) {
    const newer = actual.observedAt > pending.claimedAt;
    // A user's change in the pending write's own second may come before or after it.
    const tied =
      fromUserEvent(actual) &&
      secondOf(actual.observedAt) === secondOf(pending.claimedAt) &&
      !sameStatus(actual.status, pending.status);
    // An override the user set in an earlier second is overwritten by the write in flight.
    const overwritten =
      override !== undefined && secondOf(override.since) < secondOf(pending.claimedAt);
    const landed: Belief = {
      actual: newer ? actual.status : pending.status,
      lastWritten: pending.status,
      override: overwritten ? undefined : override?.status,
      standing,
    };
    const verdict = rule(landed, desired, now);
    const differs = "status" in verdict && !sameStatus(verdict.status, pending.status);
    return { verdict, pending, recheck: newer || differs || tied };
  }
  const believed: Belief = {
    actual: actual.status,
    lastWritten: state.lastWritten,
    override: override?.status,
    standing,
  };
  const verdict = rule(believed, desired, now);
  if ("status" in verdict) return tie === undefined ? { verdict } : { verdict, readFirst: TIE };
  if (override !== undefined) {
    // What the profile may show instead of the override: nothing (the user cleared it and the
    // event was lost), our write that tied with it, or a write of ours whose outcome is unknown.
    // A lost clear is looked for once per block: at the first decision after the block began
    // that finds the override last seen before it (a read that finds it restamps it).
    const lostClear = desired !== undefined && desired.start > override.since;
    const instead: Belief[] = [
      ...(lostClear ? [{ ...believed, actual: EMPTY_STATUS, override: undefined }] : []),
      ...(tie === undefined ? [] : [ours(tie.status, standing)]),
      ...attempts.map((a) => ours(a.status, standing)),
    ];
    const due = instead.some((belief) => "status" in rule(belief, desired, now));
    return due ? { verdict, readFirst: OVERRIDE_MAY_BE_GONE } : { verdict };
  }
  if (tie !== undefined) {
    // Our write may have come last: then a clear (or another set) is due.
    const oursLast = rule(ours(tie.status, standing), desired, now);
    if ("status" in oursLast) return { verdict: oursLast, readFirst: TIE };
  }
  for (const attempt of attempts) {
    const applied = rule(ours(attempt.status, standing), desired, now);
    if ("status" in applied) return { verdict: applied };
  }
  return { verdict };
}

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
 * The reconciliation table (docs/reconcile.md). The status is ours only while it equals what we
 * last wrote; anything else the user set is a manual override we leave until it expires or is
 * cleared. In restore mode the standing status shows when no block does (set back after a block:
 * a restore), and a block shows over it unless the person set it while that block showed.
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
