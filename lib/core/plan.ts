import { type Decision, decideForState, decisionStatus, type StateDecision } from "./decide";
import { applyRead, type ReadResult } from "./profile-read";
import { overrideActive, type StatusState, sameStatus } from "./status-state";
import type { Block, StatusValue } from "./types";

/*
 * The reconcile decision as one pure function: from the stored state, the block that should
 * show, what a read of the profile showed (when one was made) and the time, the one step the
 * reconciler takes next. The shell (lib/app/status/reconcile.ts) only loads, asks, claims and sends.
 */

/** How the user and the deployment shape the decision. */
export interface PlanPolicy {
  /** The user paused automatic statuses: nothing is ever written. */
  paused: boolean;
  /** How long a claimed write blocks other writes of the same user. */
  leaseMs: number;
  /** Read the profile before every write, not only when the decision rests on a belief. */
  verifyBeforeWrite: boolean;
  /** While a write is in flight, a different decision is looked at again after this long. */
  inFlightRecheckMs: number;
}

/** What reading the profile gave: the status it shows (at `at`, epoch ms), or no answer. */
export type ProfileRead =
  | { kind: "shown"; status: StatusValue; at: number }
  /** The read failed for a reason the write itself would report: act on what events said. */
  | { kind: "unavailable" };

/** What a read found that changes what we believed (worth a log line). */
export type ReadFinding = "manual_found" | "override_gone";

/** A write the step sends. */
export type WriteDecision = Extract<Decision, { kind: "set" } | { kind: "clear" }>;

/**
 * The next step. Steps that keep something carry the `state` to store and `changed`, whether it
 * differs from the stored one (the shell also stores when the schedule moved).
 */
export type Step =
  /** Nothing is sent: a manual status stands, the user paused, or the service refused this status. */
  | { kind: "leave"; reason: string; state: StatusState; changed: boolean; found?: ReadFinding }
  /** Nothing is due: the profile shows what it should, or a write in flight covers it. */
  | { kind: "nothing"; state: StatusState; changed: boolean; found?: ReadFinding }
  /** A final auth error stopped this user's writes until they authorise again. */
  | { kind: "needs_reauth"; code: string }
  /** Read the profile, then plan again with what it showed. */
  | { kind: "read" }
  /** Claim `status` on the state (a versioned write), then send it. */
  | {
      kind: "write";
      decision: WriteDecision;
      status: StatusValue;
      state: StatusState;
      found?: ReadFinding;
    }
  /** Come back at `at`; `enqueue` when the shell must put a message on the queue for it. */
  | {
      kind: "reschedule";
      at: number;
      code: string;
      state: StatusState;
      changed: boolean;
      enqueue: boolean;
    };

/** The state without a retry whose time has passed (kept while a write is due: its count paces the backoff). */
const withoutPassedRetry = (state: StatusState, now: number): StatusState => {
  const { retry, ...rest } = state;
  return retry === undefined || retry.at > now ? state : rest;
};

/** A step that sends nothing: stores the state with a passed retry dropped, says why. */
function settle(
  state: StatusState,
  decision: Decision,
  now: number,
  read: boolean,
  found: ReadFinding | undefined,
): Step {
  const cleaned = withoutPassedRetry(state, now);
  const kept = { state: cleaned, changed: read || cleaned !== state, ...(found ? { found } : {}) };
  if (decisionStatus(decision) !== undefined) {
    // A write was due, but the service refused this very status before.
    const reason = `the service refused this status (${state.rejected?.code})`;
    return { kind: "leave", reason, ...kept };
  }
  if (decision.kind === "leave") return { kind: "leave", reason: decision.reason, ...kept };
  return { kind: "nothing", ...kept };
}

const write = (
  decision: Decision,
  status: StatusValue,
  state: StatusState,
  found: ReadFinding | undefined,
): Step => ({
  kind: "write",
  decision: decision as WriteDecision,
  status,
  state,
  ...(found ? { found } : {}),
});

/** Whether a read changed what we believed about a manual override. */
function findingOf(before: StatusState, result: ReadResult, now: number): ReadFinding | undefined {
  const stood = before.override !== undefined && overrideActive(before.override.status, now);
  if (result === "manual" && !stood) return "manual_found";
  // Its clear's user_change was lost, or our write came after it in the same second.
  if (result !== "manual" && stood) return "override_gone";
  return undefined;
}

/**
 * The step to take now. `read` is what a read of the profile showed, when the shell made one
 * because an earlier call asked for it (`{ kind: "read" }`); with a read, plan never asks again.
 */
export function plan(
  state: StatusState,
  desired: Block | undefined,
  read: ProfileRead | undefined,
  now: number,
  policy: PlanPolicy,
): Step {
  const reauth = state.needsReauth;
  if (reauth !== undefined) return { kind: "needs_reauth", code: reauth.code };
  const first: StateDecision = policy.paused
    ? { decision: { kind: "leave", reason: "paused" } }
    : decideForState(state, desired, now, policy.leaseMs);
  const target = decisionStatus(first.decision);
  const inFlight = first.inFlight;
  if (inFlight !== undefined) {
    // The write in flight is what this reconcile would send: it is its sender's job.
    if (first.recheck !== true) {
      return target === undefined
        ? settleInFlight(first.decision, state)
        : { kind: "nothing", state, changed: false };
    }
    // Something else is due once the write in flight lands: its sender decides again right
    // after recording it, and a message a moment later covers a sender that died.
    return {
      kind: "reschedule",
      at: now + policy.inFlightRecheckMs,
      code: "write_in_flight",
      state: { ...state, pending: { ...inFlight, recheck: true } },
      changed: inFlight.recheck !== true,
      enqueue: true,
    };
  }
  const rejected = state.rejected;
  const refused = (t: StatusValue): boolean =>
    rejected !== undefined && sameStatus(rejected.status, t);
  const writable = target !== undefined && !refused(target);
  if (!writable && first.readFirst !== true)
    return settle(state, first.decision, now, false, undefined);
  const retry = state.retry;
  if (retry !== undefined && retry.at > now) {
    // Honour Retry-After, backoff and the rate budget even when an event asks for a reconcile sooner.
    return {
      kind: "reschedule",
      at: retry.at,
      code: retry.code,
      state,
      changed: false,
      enqueue: false,
    };
  }
  // Every write reads first with verifyBeforeWrite; without it, only one whose decision rests
  // on a standing override or a same-second tie (the read is what settles them).
  if (read === undefined && (policy.verifyBeforeWrite || first.readFirst === true)) {
    return { kind: "read" };
  }
  if (read?.kind === "shown") {
    const applied = applyRead(state, read.status, read.at);
    const found = findingOf(state, applied.result, now);
    // Final: a second read would show the same.
    const again = decideForState(applied.state, desired, now, policy.leaseMs).decision;
    const againTarget = decisionStatus(again);
    if (againTarget === undefined || refused(againTarget)) {
      return settle(applied.state, again, now, true, found);
    }
    return write(again, againTarget, applied.state, found);
  }
  if (target === undefined || refused(target)) {
    return settle(state, first.decision, now, false, undefined);
  }
  return write(first.decision, target, state, undefined);
}

/** A write in flight already sends what is due: nothing changes, the decision says why. */
const settleInFlight = (decision: Decision, state: StatusState): Step =>
  decision.kind === "leave"
    ? { kind: "leave", reason: decision.reason, state, changed: false }
    : { kind: "nothing", state, changed: false };
