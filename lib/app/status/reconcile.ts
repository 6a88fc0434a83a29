// lib/app/status: the reconcile, and the status records it keeps (what we wrote, what the profile
// showed, when the user next wakes).
import { decide, type Situation } from "#lib/core/reconcile/decision";
import type { ReadFinding } from "#lib/core/reconcile/state";
import type { UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import type { ReconcileOutcome } from "../contracts";
import { recordTransitionLateness } from "../metrics/catalog";
import { retryOnConflict } from "../version-retry";
import { rulesOf, timelineOf } from "./desired-timeline";
import { followSnooze } from "./dnd";
import { readProfile, sendStatus, takeWriteSlot } from "./profile-calls";
import { deferForBudget, enqueueTransition, newStatusRecord, saveStatus } from "./records";

/**
 * Reconciles one user's profile with their timeline. The pure `decide` (lib/core/reconcile)
 * chooses the step; this loop takes it: it loads the user, asks, reads the profile when asked
 * (and asks again with what the read showed), then stores the decided record when it changed:
 * for a write, with its claim (a versioned put, so concurrent reconciles send it once), before
 * sending it and recording the answer; a wait is queued. A lost race starts over from a fresh
 * load.
 */
export async function reconcileUser(ctx: UseCaseContext, key: UserKey): Promise<ReconcileOutcome> {
  return retryOnConflict(
    ctx.options.maxConflictRetries,
    () => reconcileOnce(ctx, key),
    () => {
      ctx.log.warn("reconcile gave up after repeated conflicts", {
        team: key.team,
        user: key.user,
      });
      return { kind: "conflict_retried_out" };
    },
  );
}

async function reconcileOnce(ctx: UseCaseContext, key: UserKey): Promise<ReconcileOutcome> {
  const now = ctx.clock.now();
  const snap = await ctx.store.loadUser(key);
  const user = snap.user;
  if (user === undefined) return { kind: "leave", reason: "unknown user" };
  const expected = snap.status?.version;
  const rules = rulesOf(ctx.log, user);
  const situation: Situation = {
    record: snap.status ?? newStatusRecord(key, now),
    timeline: timelineOf(ctx.log, snap, now, rules),
    now,
    policy: {
      paused: user.mode === "paused",
      leaseMs: ctx.options.pendingLeaseMs,
      verifyBeforeWrite: ctx.options.verifyBeforeWrite,
      inFlightRecheckMs: ctx.options.inFlightRecheckMs,
      standing: rules.standing,
    },
  };
  // Do Not Disturb follows the same timeline, on its own item (lib/app/status/dnd.ts).
  await followSnooze(ctx, snap, situation.timeline);
  let next = decide(situation);
  // A write is claimed (and so stamped as sent) at `claimAt`: no earlier than a read it follows.
  let claimAt = now;
  if (next.status.kind === "read" || next.status.kind === "set" || next.status.kind === "clear") {
    // The slot comes before the read, so the read and the write both fall in it; without
    // room the user is retried once, at the slot kept for it.
    const slot = await takeWriteSlot(ctx, user);
    if (!slot.ok) return deferForBudget(ctx, situation.record, slot.retryAt);
  }
  if (next.status.kind === "read") {
    // Read before claiming: the read lands in the store with the claim (one put), is older
    // than the write it verifies, and a conflict re-reads from scratch.
    const answer = await readProfile(ctx, user, now);
    if (answer.kind === "failed") return answer.outcome;
    claimAt = Math.max(now, ctx.clock.now());
    next = decide({ ...situation, read: answer, claimAt });
  }
  const step = next.status;
  if (step.kind === "needs_reauth") return { kind: "needs_reauth", code: step.code };
  if (step.kind === "read") throw new Error("the decision asked to read the profile twice");
  if ("found" in step && step.found !== undefined) logFinding(ctx, key, step.found);
  const write = step.kind === "set" || step.kind === "clear" ? step : undefined;
  const stored = next.changed ? await saveStatus(ctx, next.record, expected) : next.record;
  if (step.kind === "wait") {
    if (step.enqueue) await enqueueTransition(ctx, key, step.at, "retry", now);
    return { kind: "rescheduled", at: step.at, code: step.code };
  }
  if (step.kind === "leave") return { kind: "leave", reason: step.reason };
  if (write === undefined) return { kind: "nothing" };
  const sent = await sendStatus(ctx, user, write.status, claimAt, stored);
  if (sent.outcome !== undefined) return sent.outcome;
  const answeredAt = sent.answeredAt ?? ctx.clock.now();
  recordTransitionLateness(ctx.metrics, situation.record, next.desired, answeredAt);
  const written = { team: key.team, user: key.user, kind: write.kind, reason: write.reason };
  ctx.log.info("status written", written);
  // Another reconcile found something else due while this write was in flight.
  if (sent.recheck) await ctx.reconcile(key);
  return write.kind === "set" ? { kind: "set", ...write.status } : { kind: "clear" };
}

/** Says what a read before a write found, when it changes what we believed. */
function logFinding(ctx: UseCaseContext, key: UserKey, found: ReadFinding): void {
  const ids = { team: key.team, user: key.user };
  if (found === "manual_found") ctx.log.info("manual status found on the profile; left alone", ids);
  else ctx.log.info("manual override no longer on the profile; dropped", ids);
}
