import { runPollBatch } from "../../lib/app/sync-coalescing";
import { queueHandler, syncQueueMessageSchema } from "../shared/queue";

/** SQS sync queue: one source per message (its id claims the source's sync gate), or a poll batch. */
export const handler = queueHandler(syncQueueMessageSchema, async (record, app) => {
  const { message, messageId, sentAt } = record;
  if ("sources" in message) {
    const deps = { log: app.log, sync: app.syncSource, queue: app.syncQueue };
    return void (await runPollBatch(deps, message, sentAt));
  }
  app.log.appendKeys({ user: message.user, sourceId: message.sourceId });
  const outcome = await app.syncSource(message, sentAt, messageId);
  app.log.info("sync done", {
    outcome: outcome.kind,
    ...("reason" in outcome ? { why: outcome.reason } : {}),
  });
});
