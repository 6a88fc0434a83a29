import { scheduleHandler } from "../shared/schedule";

/** Every few minutes: enqueue a re-sync of every source whose poll slot the last run ended. */
export const handler = scheduleHandler(async (app) => {
  const due = await app.admin.sourcesDue(app.clock.now());
  let enqueued = 0;
  for (const source of due) {
    if (await app.requestSync({ ...source, reason: "poll" })) enqueued++;
  }
  app.log.info("poll", { due: due.length, enqueued });
  return { enqueued };
});
