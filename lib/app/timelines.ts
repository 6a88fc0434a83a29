import { VersionConflict } from "../core/ports";
import type { TimelineRecord } from "../core/records";
import type { Block, UserKey } from "../core/types";
import type { UseCaseContext } from "./context";
import type { TimelineMeta } from "./contracts";
import { UnknownUserError } from "./errors";
import { enqueueTransition } from "./status-records";
import { retryOnConflict, unlessConflict } from "./version-retry";

/** Stores one source's fresh timeline, then reconciles the user at once. */
export async function applyTimeline(
  ctx: UseCaseContext,
  key: UserKey,
  blocks: Block[],
  meta: TimelineMeta,
): Promise<void> {
  const stored = await retryOnConflict(
    ctx.options.maxConflictRetries,
    async () => {
      const now = ctx.clock.now();
      const snap = await ctx.store.loadUser(key);
      if (snap.user === undefined) throw new UnknownUserError(key.team, key.user);
      if (!snap.user.sources.some((src) => src.id === meta.sourceId)) {
        // The user removed this calendar while it was being fetched: its blocks don't count.
        ctx.log.info("timeline of a source the user no longer has skipped", {
          team: key.team,
          user: key.user,
          sourceId: meta.sourceId,
        });
        return false;
      }
      const existing = snap.timelines.find((t) => t.sourceId === meta.sourceId);
      const kept = blocks.filter((b) => b.end > now - ctx.options.keepPastMs && b.end > b.start);
      const record: TimelineRecord = {
        key,
        sourceId: meta.sourceId,
        blocks: kept,
        ...(meta.etag !== undefined ? { etag: meta.etag } : {}),
        ...(meta.hash !== undefined ? { hash: meta.hash } : {}),
        version: existing?.version ?? 0,
        updatedAt: now,
      };
      await ctx.store.putTimeline(record, existing?.version);
      return true;
    },
    () => {
      throw new VersionConflict(
        `USER#${key.team}#${key.user} TIMELINE#${meta.sourceId}`,
        undefined,
      );
    },
  );
  // Reconcile at once: plan() does nothing unless the block showing now changed.
  if (stored) await ctx.reconcile(key);
}

/**
 * The minute tick: enqueues every transition due before the next tick (out-of-office first),
 * and any long-overdue one whose message was lost. Returns how many were enqueued.
 */
export async function tick(ctx: UseCaseContext): Promise<number> {
  const now = ctx.clock.now();
  // From 0: a transition missed by any amount (ticks lost, a worker down) is still found.
  const due = await ctx.store.dueBetween(0, now + ctx.options.tickHorizonMs);
  const lostBefore = now - ctx.options.lostTransitionGraceMs;
  const todo = due
    .filter(
      (r) =>
        r.nextTransitionAt !== undefined &&
        // Enqueued already, unless it is long overdue: then its message was lost.
        (r.enqueuedFor !== r.nextTransitionAt || r.nextTransitionAt < lostBefore),
    )
    .sort(
      (a, b) =>
        Number(b.nextIsOoo === true) - Number(a.nextIsOoo === true) ||
        (a.nextTransitionAt ?? 0) - (b.nextTransitionAt ?? 0),
    );
  let sent = 0;
  for (const rec of todo) {
    const at = rec.nextTransitionAt ?? now;
    await enqueueTransition(ctx, rec.key, at, rec.nextIsOoo === true ? "ooo" : "transition", now);
    sent++;
    // A conflict: the user changed meanwhile, and that write rescheduled them itself.
    await unlessConflict(() => ctx.store.putStatus({ ...rec, enqueuedFor: at }, rec.version));
  }
  return sent;
}
