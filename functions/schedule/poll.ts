import { scheduleHandler } from "../shared/schedule";

/** ICS sources that had no sync for this long get polled: the safety net under push. */
export const POLL_AFTER_MS = 15 * 60_000;

/** Every few minutes: enqueue a re-sync of every source not synced for 15 minutes. */
export const handler = scheduleHandler(async (app) => {
  const due = await app.admin.sourcesDue(app.clock.now() - POLL_AFTER_MS);
  let enqueued = 0;
  for (const source of due) {
    if (await app.requestSync({ ...source, reason: "poll" })) enqueued++;
  }
  app.log.info("poll", { due: due.length, enqueued });
  return { enqueued };
});
