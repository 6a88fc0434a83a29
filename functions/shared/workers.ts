import type * as z from "zod";
import type { App } from "../../lib/app/root";
import type { QueueRecord, syncMessageSchema } from "./queue";

/**
 * What the sync worker, the poll and the tick do with their app: the handler files only put these on their
 * middy chains, so each stays a few lines.
 */

/**
 * One sync message: re-fetch, expand and apply one calendar source. The message id claims the
 * source's sync gate, so a redelivery after a crash takes it back at once.
 */
export async function syncOne(
  { message, messageId, sentAt }: QueueRecord<z.infer<typeof syncMessageSchema>>,
  app: App,
): Promise<void> {
  app.log.appendKeys({ user: message.user, sourceId: message.sourceId });
  const outcome = await app.syncSource(message, sentAt, messageId);
  app.log.info("sync done", {
    outcome: outcome.kind,
    ...("reason" in outcome ? { why: outcome.reason } : {}),
  });
}

/** The poll: enqueue a re-sync of every source whose poll slot the last run ended. */
export async function pollDue(app: App): Promise<{ enqueued: number }> {
  const due = await app.admin.sourcesDue(app.clock.now());
  let enqueued = 0;
  for (const source of due) {
    if (await app.requestSync({ ...source, reason: "poll" })) enqueued++;
  }
  app.log.info("poll", { due: due.length, enqueued });
  return { enqueued };
}

/** The tick: enqueue each transition due in the next 70 s with its exact-second delay. */
export async function tickOnce(app: App): Promise<{ enqueued: number }> {
  const enqueued = await app.useCases.tick();
  app.log.info("tick", { enqueued });
  return { enqueued };
}
