import { type QueueEntry, VersionConflict } from "#lib/core/ports";
import { initialStatusState } from "#lib/core/reconcile/state";
import type { StatusRecord, UserRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import type { ReconcileOutcome, TransitionMessage } from "../contracts";
import { UnknownUserError } from "../errors";
import { delaySecondsUntil, MAX_DELAY_S, sendEntries } from "../queue-sends";
import { retryOnConflict } from "../version-retry";

/** Reading and writing a user's status and profile records, and queueing their transitions. */

export const newStatusRecord = (key: UserKey, now: number): StatusRecord => ({
  key,
  state: initialStatusState(),
  version: 0,
  updatedAt: now,
});

/** A transition to put on the queue: whose, when it is due, and why. */
export interface TransitionSend {
  key: UserKey;
  at: number;
  reason: TransitionMessage["reason"];
}

/**
 * SendMessageBatch requests the tick keeps in flight at once: at ~10 ms a request in-region, a
 * 09:00 herd of 10,000 users (1,000 requests) goes out in about 1.3 s, well inside the tick's
 * minute, without opening a connection per request.
 */
export const TRANSITION_SENDS_IN_FLIGHT = 8;

/** The queue entry reconciling `key` at `at`: delayed to its second (up to 15 min). */
function transitionEntry(send: TransitionSend, now: number): QueueEntry<TransitionMessage> {
  const { key, at, reason } = send;
  return {
    message: { team: key.team, user: key.user, at, reason },
    delaySeconds: delaySecondsUntil(at, now),
    dedupeKey: `${key.team}#${key.user}#${at}`,
  };
}

/** Puts a message to reconcile `key` at `at` on the transition queue (delayed up to 15 min). */
export async function enqueueTransition(
  ctx: UseCaseContext,
  key: UserKey,
  at: number,
  reason: TransitionMessage["reason"],
  now: number,
): Promise<void> {
  const { message, ...opts } = transitionEntry({ key, at, reason }, now);
  await ctx.queue.send(message, opts);
}

/**
 * Puts many transitions on the transition queue, in the order given (sendEntries: ten to a
 * request, each with its own delay, TRANSITION_SENDS_IN_FLIGHT requests at once); a failure is
 * thrown once every request was made, for the caller to retry the whole (a transition sent
 * twice is harmless: the reconcile is idempotent).
 */
export async function enqueueTransitions(
  ctx: UseCaseContext,
  sends: readonly TransitionSend[],
  now: number,
): Promise<void> {
  const entries = sends.map((send) => transitionEntry(send, now));
  await sendEntries(ctx.queue, entries, TRANSITION_SENDS_IN_FLIGHT);
}

/** Queues a retry at `at`; beyond the queue's longest delay the due index brings it back. */
export async function enqueueRetry(ctx: UseCaseContext, key: UserKey, at: number): Promise<void> {
  const now = ctx.clock.now();
  if (at - now <= MAX_DELAY_S * 1000) await enqueueTransition(ctx, key, at, "retry", now);
}

/**
 * Stores a status record conditionally on `expected` and answers it as stored. A transition
 * closer than the next tick is enqueued at once (the tick may already have passed its window),
 * marked as enqueued in the same write.
 */
export async function saveStatus(
  ctx: UseCaseContext,
  rec: StatusRecord,
  expected: number | undefined,
): Promise<StatusRecord> {
  const now = ctx.clock.now();
  const at = rec.nextTransitionAt;
  const enqueue =
    at !== undefined && at < now + ctx.options.tickHorizonMs && rec.enqueuedFor !== at;
  const saved = await ctx.store.putStatus(enqueue ? { ...rec, enqueuedFor: at } : rec, expected);
  if (enqueue) {
    const reason = saved.nextIsOoo === true ? "ooo" : "transition";
    await enqueueTransition(ctx, saved.key, at, reason, now);
  }
  return saved;
}

/** Changes the stored status record with `fn`, from a fresh read, until no race is lost. */
export async function mutateStatus(
  ctx: UseCaseContext,
  key: UserKey,
  fn: (rec: StatusRecord, now: number) => StatusRecord,
): Promise<void> {
  await retryOnConflict(
    ctx.options.maxConflictRetries,
    async () => {
      const now = ctx.clock.now();
      const current = await ctx.store.getStatus(key);
      await ctx.store.putStatus(
        { ...fn(current ?? newStatusRecord(key, now), now), updatedAt: now },
        current?.version,
      );
    },
    () => {
      throw new VersionConflict(`USER#${key.team}#${key.user} STATUS`, undefined);
    },
  );
}

/**
 * Changes the stored user profile with `fn`, from a fresh read, until no race is lost. `fn`
 * answers undefined to write nothing (what it would change is gone); answers whether it wrote.
 */
export async function mutateUser(
  ctx: UseCaseContext,
  key: UserKey,
  fn: (u: UserRecord) => UserRecord | undefined,
): Promise<boolean> {
  return retryOnConflict(
    ctx.options.maxConflictRetries,
    async () => {
      const current = await ctx.store.getUser(key);
      if (current === undefined) throw new UnknownUserError(key.team, key.user);
      const next = fn(current);
      if (next === undefined) return false;
      await ctx.store.putUser({ ...next, updatedAt: ctx.clock.now() }, current.version);
      return true;
    },
    () => {
      throw new VersionConflict(`USER#${key.team}#${key.user} PROFILE`, undefined);
    },
  );
}

/**
 * Changes the status record `known` (as loaded or last stored) with `fn` in one conditional
 * write, without reading it again; only when something changed it meanwhile, from a fresh read.
 */
export async function updateStatus(
  ctx: UseCaseContext,
  known: StatusRecord,
  fn: (rec: StatusRecord, now: number) => StatusRecord,
): Promise<void> {
  if (known.version > 0) {
    const now = ctx.clock.now();
    try {
      await ctx.store.putStatus({ ...fn(known, now), updatedAt: now }, known.version);
      return;
    } catch (error: unknown) {
      if (!(error instanceof VersionConflict)) throw error;
    }
  }
  await mutateStatus(ctx, known.key, fn);
}

/**
 * Schedules a write the rate budget has no room for now at its slot `at`, from the record as
 * loaded (`known`). Its retry is queued here and marked as queued in the same write, so the
 * tick does not queue it again: the user is retried once, at its slot.
 */
export async function deferForBudget(
  ctx: UseCaseContext,
  known: StatusRecord,
  at: number,
): Promise<ReconcileOutcome> {
  const key = known.key;
  const queued = at - ctx.clock.now() <= MAX_DELAY_S * 1000;
  // The same slot handed out again (a duplicate message): its retry is queued already.
  const queuedAlready = (rec: StatusRecord) =>
    queued && rec.enqueuedFor === at && rec.state.retry?.at === at;
  let requeue = !queuedAlready(known);
  if (!requeue) return { kind: "rescheduled", at, code: "rate_budget" };
  await updateStatus(ctx, known, (rec, now) => {
    requeue = !queuedAlready(rec);
    if (!requeue) return rec;
    // Not a failure: the backoff attempt count stays as it was.
    const attempt = rec.state.retry?.attempt ?? 0;
    // A wake-up already passed is this very transition: the retry at `at` covers it.
    const later = rec.nextTransitionAt !== undefined && rec.nextTransitionAt > now;
    const next = Math.min(later ? (rec.nextTransitionAt ?? at) : at, at);
    const { enqueuedFor: _was, ...rest } = rec;
    return {
      ...rest,
      state: { ...rec.state, retry: { attempt, at, code: "rate_budget" } },
      nextTransitionAt: next,
      ...(queued && next === at ? { enqueuedFor: at } : {}),
    };
  });
  if (requeue) await enqueueRetry(ctx, key, at);
  ctx.log.info("status write waits for the rate budget", { team: key.team, user: key.user, at });
  return { kind: "rescheduled", at, code: "rate_budget" };
}
