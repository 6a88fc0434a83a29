import type { Queue, QueueEntry } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import type { UpkeepDue, UpkeepSchedule } from "#lib/core/upkeep-schedule";
import type { SyncMessage } from "../contracts";
import { delaySecondsUntil, sendEntries } from "../queue-sends";
import { nextUpkeepAt } from "./plan";
import { requestPushWork } from "./requests";
import { type PushUpkeepDeps, type UpkeepOutcome, upkeepPush } from "./upkeep";

/**
 * Push upkeep through the due index. Each connected source has an upkeep entry (lib/core's
 * UpkeepSchedule) holding when its channel next needs work: its renewal (plan.ts renewAtOf, from
 * the lifetime the provider granted), or the retry after a failure (plan.ts nextUpkeepAt). As for
 * status transitions, the minute tick looks ahead to the next tick (the context's
 * tickHorizonMs) and queues one sync-queue message (reason "upkeep") for each entry due by then,
 * delayed to land on its second: a channel granted 90 s is renewed on time, not at the first
 * tick after its renewal fell due. An upkeep that leaves its next instant before the next tick
 * queues that message itself. The sync worker claims the entry (its lease keeps two workers
 * from renewing one channel at once), does what the channel needs, and writes the next instant.
 * Pushes, lifecycle notifications and the poll's safety checks may ask for an upkeep at once
 * with the same message. A message twice is harmless: the second finds the work done.
 */

/** A claim on an upkeep lapses after this (a worker that died mid-upkeep): longer than any run. */
export const UPKEEP_LEASE_MS = 5 * 60_000;

/** SendMessageBatch requests the tick keeps in flight for upkeeps (as for transitions). */
export const UPKEEP_SENDS_IN_FLIGHT = 8;

export interface PushScheduleDeps {
  upkeep: PushUpkeepDeps;
  schedule: UpkeepSchedule;
  /** Where upkeep messages, and the read that follows a new channel, go. */
  syncQueue: Queue<SyncMessage>;
}

/**
 * How far each schedule's ticks have queued upkeeps (epoch ms), kept in the worker's memory as
 * the tick's transitions are (lib/app/sync/timelines.ts): an entry due after it is new to the
 * tick; one due before it was queued already, unless it is overdue now.
 */
const enqueuedUntil = new WeakMap<PushScheduleDeps, number>();

/**
 * The tick's part: one upkeep message for each entry due before the next tick, delayed to its
 * second, that no earlier tick queued, and again for each entry overdue now (its message lost,
 * or its upkeep still running: the claim answers the duplicate "busy"). Answers how many.
 */
export async function enqueueDueUpkeeps(deps: PushScheduleDeps): Promise<number> {
  const { clock, options } = deps.upkeep.ctx;
  const now = clock.now();
  const until = now + options.tickHorizonMs;
  const from = enqueuedUntil.get(deps) ?? 0;
  const due = await deps.schedule.dueBy(until);
  const todo = due.filter((d) => d.dueAt <= now || d.dueAt > from);
  await sendEntries(
    deps.syncQueue,
    todo.map((d) => upkeepEntry(d, now)),
    UPKEEP_SENDS_IN_FLIGHT,
  );
  // Only once all went out: a tick that failed half-way is retried whole.
  enqueuedUntil.set(deps, Math.max(from, until));
  return todo.length;
}

/** The upkeep message of an entry, delayed to land on the second it is due. */
const upkeepEntry = (d: UpkeepDue, now: number): QueueEntry<SyncMessage> => ({
  message: upkeepMessage(d.key, d.sourceId),
  delaySeconds: delaySecondsUntil(d.dueAt, now),
});

export const upkeepMessage = (
  key: UserKey,
  sourceId: string,
  upkeep?: SyncMessage["upkeep"],
): SyncMessage => ({
  team: key.team,
  user: key.user,
  sourceId,
  reason: "upkeep",
  ...(upkeep !== undefined ? { upkeep } : {}),
});

export type UpkeepRun =
  | UpkeepOutcome
  /** Another worker holds the source's upkeep; or (a repair) a retry of it is waiting. */
  | { kind: "busy" }
  /** The source is gone or no longer connected (or went mid-upkeep): its entry was parked. */
  | { kind: "gone" };

/**
 * One source's upkeep, under its entry's claim: a lifecycle request is recorded first; a repair
 * (the poll found the upkeep overdue) runs unless a retry backing off holds a later instant (a
 * later instant without failures is a plain renewal, which the overdue channel cannot wait
 * for); a new channel's first read is queued when `readNewChannel`.
 */
export async function runUpkeep(
  deps: PushScheduleDeps,
  key: UserKey,
  sourceId: string,
  opts: { upkeep?: SyncMessage["upkeep"]; readNewChannel: boolean },
): Promise<UpkeepRun> {
  const { ctx } = deps.upkeep;
  const request = opts.upkeep?.request;
  if (request !== undefined) {
    await requestPushWork(ctx, key, sourceId, request, opts.upkeep?.channelId);
  }
  const now = ctx.clock.now();
  const claimed = await deps.schedule.claim(key, sourceId, now, now + UPKEEP_LEASE_MS);
  if (claimed === undefined) return { kind: "busy" };
  if (opts.upkeep?.repair === true && claimed.dueAt > now && claimed.failures > 0) {
    // A retry waiting: put it back as it was.
    await deps.schedule.set(claimed);
    return { kind: "busy" };
  }
  const user = await ctx.store.getUser(key);
  const source = user?.sources.find((s) => s.id === sourceId);
  if (
    user === undefined ||
    user.uninstalledAt !== undefined ||
    source?.refreshTokenSealed === undefined ||
    source.reconnectSince !== undefined
  ) {
    // Nothing to keep alive until the account is connected (again): completeConnect re-arms it.
    await deps.schedule.park(key, sourceId);
    return { kind: "gone" };
  }
  const outcome = await upkeepPush(deps.upkeep, key, source);
  if (outcome.kind === "gone") {
    // Removed while its channel was being made (the removal deleted the entry we hold): writing
    // the next instant would bring the entry back.
    await deps.schedule.park(key, sourceId);
    return outcome;
  }
  const failures = outcome.kind === "failed" ? claimed.failures + 1 : 0;
  const push = "push" in outcome ? outcome.push : source.push;
  if (outcome.kind === "failed" && outcome.code === "invalid_grant") {
    // Flagged "reconnect": no upkeep until the person connects again.
    await deps.schedule.park(key, sourceId);
    return outcome;
  }
  const after = ctx.clock.now();
  const next = { key, sourceId, dueAt: nextUpkeepAt(push, failures, after), failures };
  await deps.schedule.set(next);
  // Due before the next tick may look (a channel granted a short lifetime): the tick's window
  // may have passed it already. Only when the instant moved, so that a duplicate adds nothing.
  const soon = next.dueAt > after && next.dueAt < after + ctx.options.tickHorizonMs;
  if (soon && next.dueAt !== claimed.dueAt) {
    const { message, ...send } = upkeepEntry(next, after);
    await deps.syncQueue.send(message, send);
  }
  if (opts.readNewChannel && (outcome.kind === "created" || outcome.kind === "recreated")) {
    // Changes made before the channel existed were never pushed: read the calendar in full.
    await deps.syncQueue.send({ ...key, sourceId, reason: "manual" }, { delaySeconds: 0 });
  }
  return outcome;
}
