import { queueHandler, syncMessageSchema } from "../shared/queue";

/** SQS sync queue: re-fetch, expand and apply one calendar source per message. */
export const handler = queueHandler(syncMessageSchema, async ({ message, sentAt }, app) => {
  app.log.appendKeys({ user: message.user, sourceId: message.sourceId });
  const outcome = await app.syncSource(message, sentAt);
  app.log.info("sync done", {
    outcome: outcome.kind,
    ...("reason" in outcome ? { why: outcome.reason } : {}),
  });
});
