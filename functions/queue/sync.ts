import { queueHandler, syncMessageSchema } from "../shared/queue";

/**
 * SQS sync queue: re-fetch, expand and apply one calendar source per message. The message id
 * claims the source's sync gate, so a redelivery after a crash takes it back at once.
 */
export const handler = queueHandler(
  syncMessageSchema,
  async ({ message, messageId, sentAt }, app) => {
    app.log.appendKeys({ user: message.user, sourceId: message.sourceId });
    const outcome = await app.syncSource(message, sentAt, messageId);
    app.log.info("sync done", {
      outcome: outcome.kind,
      ...("reason" in outcome ? { why: outcome.reason } : {}),
    });
  },
);
