import { queueHandler, transitionMessageSchema } from "../shared/queue";

/** SQS transition queue: reconcile the user at (about) the second the message was delayed to. */
export const handler = queueHandler(transitionMessageSchema, async ({ message }, app) => {
  app.log.appendKeys({ user: message.user });
  const outcome = await app.useCases.reconcileUser({ team: message.team, user: message.user });
  app.log.info("reconciled", { outcome: outcome.kind, lateMs: app.clock.now() - message.at });
});
