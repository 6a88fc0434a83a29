import { sendPollChecks } from "../../lib/app/sync-coalescing";
import { scheduleHandler } from "../shared/schedule";

/** Every few minutes: enqueue a check of every source whose poll slot the last run ended. */
export const handler = scheduleHandler(async (app) => {
  const due = await app.admin.sourcesDue(app.clock.now());
  const messages = await sendPollChecks(app.syncQueue, due);
  app.log.info("poll", { due: due.length, messages });
  return { enqueued: due.length };
});
