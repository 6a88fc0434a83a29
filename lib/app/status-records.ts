import { VersionConflict } from "#lib/core/ports";
import type { StatusRecord, UserRecord } from "#lib/core/records";
import { initialStatusState } from "#lib/core/status-state";
import type { UserKey } from "#lib/core/types";
import type { UseCaseContext } from "./context";
import type { TransitionMessage } from "./contracts";
import { UnknownUserError } from "./errors";
import { retryOnConflict } from "./version-retry";

/** Reading and writing a user's status and profile records, and queueing their transitions. */

/** SQS DelaySeconds maximum. */
export const MAX_DELAY_S = 900;

export const newStatusRecord = (key: UserKey, now: number): StatusRecord => ({
  key,
  state: initialStatusState(),
  version: 0,
  updatedAt: now,
});

/** Puts a message to reconcile `key` at `at` on the transition queue (delayed up to 15 min). */
export async function enqueueTransition(
  ctx: UseCaseContext,
  key: UserKey,
  at: number,
  reason: TransitionMessage["reason"],
  now: number,
): Promise<void> {
  const delaySeconds = Math.min(MAX_DELAY_S, Math.max(0, Math.ceil((at - now) / 1000)));
  await ctx.queue.send(
    { team: key.team, user: key.user, at, reason },
    { delaySeconds, dedupeKey: `${key.team}#${key.user}#${at}` },
  );
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

/** Changes the stored user profile with `fn`, from a fresh read, until no race is lost. */
export async function mutateUser(
  ctx: UseCaseContext,
  key: UserKey,
  fn: (u: UserRecord) => UserRecord,
): Promise<void> {
  await retryOnConflict(
    ctx.options.maxConflictRetries,
    async () => {
      const current = await ctx.store.getUser(key);
      if (current === undefined) throw new UnknownUserError(key.team, key.user);
      await ctx.store.putUser({ ...fn(current), updatedAt: ctx.clock.now() }, current.version);
    },
    () => {
      throw new VersionConflict(`USER#${key.team}#${key.user} PROFILE`, undefined);
    },
  );
}
