import type * as z from "zod";
import type { App } from "#lib/app/compose/app";
import { homeSettingsLink } from "#lib/web/settings-link";
import { eventOnceOf } from "./idempotency";
import type { QueueRecord, transitionMessageSchema } from "./queue";

/**
 * One transition message: reconcile the user at (about) the second it was delayed to. A message
 * carrying a `user_change` records it first, once per event_id (recording reconciles, unless
 * stale); a redelivery after that only reconciles. A batch's messages run at once and share the
 * logger, so the user goes in each line's data, not in a log key.
 */
export async function transitionOne(
  { message }: QueueRecord<z.infer<typeof transitionMessageSchema>>,
  app: App,
): Promise<void> {
  const { change, user } = message;
  if (message.reason === "notice") return notice(message, app);
  const once = eventOnceOf(app, "deferred-user-change");
  if (
    change &&
    (await once.run(change.eventId, () => app.useCases.recordUserChange(change)))?.value
  ) {
    app.log.info("deferred user_change recorded", { user, lateMs: app.clock.now() - message.at });
    return;
  }
  const outcome = await app.useCases.wakeUser({ team: message.team, user: message.user });
  app.log.info("reconciled", { user, outcome: outcome.kind, lateMs: app.clock.now() - message.at });
}

/**
 * A `notice` message: what the person is told (lib/app/notify/notices.ts), with the Home tab's
 * one-time settings link made here, where the view is published.
 */
async function notice(message: z.infer<typeof transitionMessageSchema>, app: App): Promise<void> {
  const key = { team: message.team, user: message.user };
  const outcome = await app.notify?.run(key, {
    ...(message.notice?.force === true ? { force: true } : {}),
    settingsLink: (who) => homeSettingsLink(app, who),
  });
  app.log.info("notice", {
    user: message.user,
    told: outcome?.told.length ?? 0,
    published: outcome?.published ?? false,
  });
}
