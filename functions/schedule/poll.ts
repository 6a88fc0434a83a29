import { scheduleHandler } from "../shared/schedule";

/** ICS sources that had no sync for this long get polled: the safety net under push. */
export const POLL_AFTER_MS = 15 * 60_000;
/** The poll runs every 5 minutes; without slack a source checked at one poll misses the poll
 * exactly 15 minutes later (its check is not *older* than 15 minutes) and waits 20. */
export const POLL_GRACE_MS = 60_000;

/** Sources whose last check is older than this instant are due. */
export const pollCutoff = (now: number): number => now - POLL_AFTER_MS + POLL_GRACE_MS;

/** Every few minutes: enqueue a re-sync of every source not synced for 15 minutes. */
export const handler = scheduleHandler(async (app) => {
  const due = await app.admin.sourcesDue(pollCutoff(app.clock.now()));
  let enqueued = 0;
  for (const source of due) {
    if (await app.requestSync({ ...source, reason: "poll" })) enqueued++;
  }
  app.log.info("poll", { due: due.length, enqueued });
  return { enqueued };
});
