// lib/app/status: the reconcile, and the status records it keeps (what we wrote, what the profile
// showed, when the user next wakes).
import { type PlanPolicy, plan, type ReadFinding, type Step } from "#lib/core/plan";
import type { StatusRecord, UserRecord } from "#lib/core/records";
import { withSchedule } from "#lib/core/schedule";
import { claimWrite } from "#lib/core/status-state";
import { desiredAt } from "#lib/core/timeline";
import type { Block, UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import type { ReconcileOutcome } from "../contracts";
import { recordTransitionLateness } from "../metrics/catalog";
import { retryOnConflict } from "../version-retry";
import { purgeIfDue } from "./app-removal";
import { timelineOf } from "./desired-timeline";
import { readProfile, sendStatus, takeWriteSlot } from "./profile-calls";
import { enqueueTransition, newStatusRecord, saveStatus } from "./records";
import { deferForBudget } from "./write-failures";

/**
 * Reconciles one user's profile with their timeline: loads the user, asks the pure `plan` for
 * the next step, reads the profile when it asks to, claims a write on the status item (a
 * versioned put, so concurrent reconciles send it once) and sends it. A lost race starts over
 * from a fresh load.
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
  if (await purgeIfDue(ctx, snap.status, key)) return { kind: "leave", reason: "deleted" };
  const rec = snap.status ?? newStatusRecord(key, now);
  const expected = snap.status?.version;
  const timeline = timelineOf(ctx.log, snap, now);
  const desired = desiredAt(timeline, now);
  const policy: PlanPolicy = {
    paused: user.mode === "paused",
    leaseMs: ctx.options.pendingLeaseMs,
    verifyBeforeWrite: ctx.options.verifyBeforeWrite,
    inFlightRecheckMs: ctx.options.inFlightRecheckMs,
  };
  let step = plan(rec.state, desired, undefined, now, policy);
  const reads = step.kind === "read";
  if (step.kind === "read" || step.kind === "write") {
    // The slot comes before the read, so the read and the write both fall in it; without
    // room the user is retried once, at the slot kept for it.
    const slot = await takeWriteSlot(ctx, user);
    if (!slot.ok) return deferForBudget(ctx, rec, slot.retryAt);
  }
  if (step.kind === "read") {
    // Read before claiming: the read lands in the store with the claim (one put), is older
    // than the write it verifies, and a conflict re-reads from scratch.
    const read = await readProfile(ctx, user, now);
    if (read.kind === "failed") return read.outcome;
    step = plan(rec.state, desired, read, now, policy);
  }
  if ("found" in step && step.found !== undefined) logFinding(ctx, key, step.found);
  return act(ctx, { user, rec, expected, timeline, desired, now, reads }, step);
}

interface Loaded {
  user: UserRecord;
  rec: StatusRecord;
  expected: number | undefined;
  timeline: Block[];
  desired: Block | undefined;
  now: number;
  /** Whether the profile was read first (the claim then comes no earlier than the read). */
  reads: boolean;
}

async function act(ctx: UseCaseContext, l: Loaded, step: Step): Promise<ReconcileOutcome> {
  const key = l.user.key;
  switch (step.kind) {
    case "needs_reauth":
      return { kind: "needs_reauth", code: step.code };
    case "read":
      // plan never asks for a second read once it has one.
      throw new Error("plan asked to read the profile twice");
    case "leave":
    case "nothing": {
      await store(ctx, l, step);
      return step.kind === "leave" ? { kind: "leave", reason: step.reason } : { kind: "nothing" };
    }
    case "reschedule": {
      await store(ctx, l, step);
      if (step.enqueue) await enqueueTransition(ctx, key, step.at, "retry", l.now);
      return { kind: "rescheduled", at: step.at, code: step.code };
    }
    case "write": {
      // Claimed (and so stamped as sent) no earlier than the read it follows.
      const claimAt = l.reads ? Math.max(l.now, ctx.clock.now()) : l.now;
      const scheduled = withSchedule({ ...l.rec, state: step.state }, l.timeline, l.now).rec;
      const claimed = { ...scheduled, state: claimWrite(scheduled.state, step.status, claimAt) };
      const stored = await saveStatus(ctx, claimed, l.expected);
      const sent = await sendStatus(ctx, l.user, step.status, claimAt, stored);
      if (sent.outcome !== undefined) return sent.outcome;
      recordTransitionLateness(ctx.metrics, l.rec, l.desired, sent.answeredAt ?? ctx.clock.now());
      ctx.log.info("status written", { team: key.team, user: key.user, kind: step.decision.kind });
      // Another reconcile found something else due while this write was in flight.
      if (sent.recheck) await ctx.reconcile(key);
      return step.decision;
    }
  }
}

/** Stores the step's state with its schedule, when either changed. */
async function store(
  ctx: UseCaseContext,
  l: Loaded,
  step: Extract<Step, { changed: boolean }>,
): Promise<void> {
  const scheduled = withSchedule({ ...l.rec, state: step.state }, l.timeline, l.now);
  if (step.changed || scheduled.changed) await saveStatus(ctx, scheduled.rec, l.expected);
}

/** Says what a read before a write found, when it changes what we believed. */
function logFinding(ctx: UseCaseContext, key: UserKey, found: ReadFinding): void {
  const ids = { team: key.team, user: key.user };
  if (found === "manual_found") ctx.log.info("manual status found on the profile; left alone", ids);
  else ctx.log.info("manual override no longer on the profile; dropped", ids);
}
