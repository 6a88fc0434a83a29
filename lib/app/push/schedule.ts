import type { Queue } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import type { UpkeepSchedule } from "#lib/core/upkeep-schedule";
import type { SyncMessage } from "../contracts";
import { nextUpkeepAt } from "./plan";
import { requestPushWork } from "./requests";
import { type PushUpkeepDeps, type UpkeepOutcome, upkeepPush } from "./upkeep";

/**
 * Push upkeep through the due index. Each connected source has an upkeep entry (lib/core's
 * UpkeepSchedule) holding when its channel next needs work: its renewal at RENEW_AT of the
 * lifetime, or the retry after a failure (plan.ts nextUpkeepAt). The minute tick finds the
 * entries due and queues one sync-queue message (reason "upkeep") for each; the sync worker
 * claims the entry (its lease keeps two workers from renewing one channel at once), does what
 * the channel needs, and writes the next instant. Pushes, lifecycle notifications and the
 * poll's safety checks may ask for an upkeep at once with the same message.
 */

/** A claim on an upkeep lapses after this (a worker that died mid-upkeep): longer than any run. */
export const UPKEEP_LEASE_MS = 5 * 60_000;

export interface PushScheduleDeps {
  upkeep: PushUpkeepDeps;
  schedule: UpkeepSchedule;
  /** Where upkeep messages, and the read that follows a new channel, go. */
  syncQueue: Queue<SyncMessage>;
}

/** The tick's part: one upkeep message per entry due now. Answers how many were queued. */
export async function enqueueDueUpkeeps(deps: PushScheduleDeps): Promise<number> {
  const due = await deps.schedule.dueBy(deps.upkeep.ctx.clock.now());
  // One message each: a source's upkeep falls due about once per channel lifetime.
  for (const d of due) {
    await deps.syncQueue.send(upkeepMessage(d.key, d.sourceId), { delaySeconds: 0 });
  }
  return due.length;
}

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
  await deps.schedule.set({ key, sourceId, dueAt: nextUpkeepAt(push, failures, after), failures });
  if (opts.readNewChannel && (outcome.kind === "created" || outcome.kind === "recreated")) {
    // Changes made before the channel existed were never pushed: read the calendar in full.
    await deps.syncQueue.send({ ...key, sourceId, reason: "manual" }, { delaySeconds: 0 });
  }
  return outcome;
}
