import { VersionConflict } from "#lib/core/ports";
import type { TimelineRecord } from "#lib/core/records";
import type { Block, UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import type { TimelineMeta } from "../contracts";
import { UnknownUserError } from "../errors";
import { enqueueTransitions } from "../status/records";
import { retryOnConflict } from "../version-retry";

/**
 * Stores one source's fresh timeline (and its agenda, for the settings page), then reconciles
 * the user at once.
 */
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
  if (stored && meta.agenda !== undefined && ctx.agenda !== undefined) {
    const { sourceId, agenda: events } = meta;
    await ctx.agenda.put({ key, sourceId, events, updatedAt: ctx.clock.now() });
  }
  // Reconcile at once: the decision (decide) does nothing unless the block showing now changed.
  if (stored) await ctx.reconcile(key);
}

/**
 * How far each context's ticks have enqueued (epoch ms): a transition before it was the job of
 * an earlier tick, so a tick writes no marker per transition. Kept in the worker's memory: a
 * fresh instance starts from 0 and enqueues again what the last one did in its final minute
 * (a duplicate is harmless: the reconcile is idempotent), and a tick run twice adds nothing.
 */
const enqueuedUntil = new WeakMap<UseCaseContext, number>();

/**
 * The minute tick: enqueues every transition due before the next tick (out-of-office first)
 * that no earlier tick or writer enqueued, and any long-overdue one whose message was lost.
 * Returns how many were enqueued. Writes nothing: a writer that enqueues a transition itself
 * marks it in the write that schedules it (`enqueuedFor`).
 */
export async function tick(ctx: UseCaseContext): Promise<number> {
  const now = ctx.clock.now();
  const until = now + ctx.options.tickHorizonMs;
  const from = enqueuedUntil.get(ctx) ?? 0;
  // From 0: a transition missed by any amount (ticks lost, a worker down) is still found.
  const due = await ctx.store.dueBetween(0, until);
  const lostBefore = now - ctx.options.lostTransitionGraceMs;
  const todo = due
    .filter((r) => {
      const at = r.nextTransitionAt;
      // Long overdue: its message was lost (or its reconcile failed), whoever enqueued it.
      if (at < lostBefore) return true;
      return at >= from && r.enqueuedFor !== at;
    })
    .sort(
      (a, b) =>
        Number(b.nextIsOoo === true) - Number(a.nextIsOoo === true) ||
        a.nextTransitionAt - b.nextTransitionAt,
    );
  // Ten to a request, several requests at once: a herd of 10,000 goes out in seconds, not in
  // 10,000 sequential sends past the tick's timeout.
  await enqueueTransitions(
    ctx,
    todo.map((rec) => ({
      key: rec.key,
      at: rec.nextTransitionAt,
      reason: rec.nextIsOoo === true ? "ooo" : "transition",
    })),
    now,
  );
  // Only once all went out: a tick that failed half-way is retried whole.
  enqueuedUntil.set(ctx, Math.max(from, until));
  return todo.length;
}
