import { queueHandler, transitionMessageSchema } from "../shared/queue";

/**
 * SQS transition queue: reconcile the user at (about) the second the message was delayed to.
 * A message carrying a `user_change` records it first (recording reconciles, unless stale).
 */
export const handler = queueHandler(transitionMessageSchema, async ({ message }, app) => {
  app.log.appendKeys({ user: message.user });
  if (message.change && (await app.useCases.recordUserChange(message.change))) {
    app.log.info("deferred user_change recorded", { lateMs: app.clock.now() - message.at });
    return;
  }
  const outcome = await app.useCases.reconcileUser({ team: message.team, user: message.user });
  app.log.info("reconciled", { outcome: outcome.kind, lateMs: app.clock.now() - message.at });
});
