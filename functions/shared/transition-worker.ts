import type * as z from "zod";
import type { App } from "../../lib/app/root";
import { eventOnceOf } from "./idempotency";
import type { QueueRecord, transitionMessageSchema } from "./queue";

/**
 * One transition message: reconcile the user at (about) the second it was delayed to. A message
 * carrying a `user_change` records it first, once per event_id (recording reconciles, unless
 * stale); a redelivery after that only reconciles.
 */
export async function transitionOne(
  { message }: QueueRecord<z.infer<typeof transitionMessageSchema>>,
  app: App,
): Promise<void> {
  app.log.appendKeys({ user: message.user });
  const { change } = message;
  const once = eventOnceOf(app, "deferred-user-change");
  if (
    change &&
    (await once.run(change.eventId, () => app.useCases.recordUserChange(change)))?.value
  ) {
    app.log.info("deferred user_change recorded", { lateMs: app.clock.now() - message.at });
    return;
  }
  const outcome = await app.useCases.reconcileUser({ team: message.team, user: message.user });
  app.log.info("reconciled", { outcome: outcome.kind, lateMs: app.clock.now() - message.at });
}
