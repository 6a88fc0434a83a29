import { eventOnceOf } from "../shared/idempotency";
import { transitionQueueHandler } from "../shared/queue";

/**
 * SQS transition queue: reconcile the user at (about) the second the message was delayed to.
 * A message carrying a `user_change` records it first, once per event_id (recording reconciles,
 * unless stale); a redelivery after that only reconciles.
 */
export const handler = transitionQueueHandler(async ({ message }, app) => {
  const { change, user } = message;
  const once = eventOnceOf(app, "deferred-user-change");
  if (
    change &&
    (await once.run(change.eventId, () => app.useCases.recordUserChange(change)))?.value
  ) {
    app.log.info("deferred user_change recorded", { user, lateMs: app.clock.now() - message.at });
    return;
  }
  const outcome = await app.useCases.reconcileUser({ team: message.team, user: message.user });
  app.log.info("reconciled", { user, outcome: outcome.kind, lateMs: app.clock.now() - message.at });
});
