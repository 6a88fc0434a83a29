import type * as z from "zod";
import type { App } from "#lib/app/compose/app";
import { runPollBatch, sendPollChecks } from "#lib/app/sync/coalescing";
import type { QueueRecord } from "./queue";
import type { syncQueueMessageSchema } from "./sync-messages";

/**
 * What the sync worker, the poll and the tick do with their app: the handler files only put these on their
 * middy chains, so each stays a few lines.
 */

/**
 * One sync message: re-fetch, expand and apply one calendar source (the message id claims the
 * source's sync gate, so a redelivery after a crash takes it back at once), or check a poll
 * batch's sources.
 */
export async function syncOne(
  { message, messageId, sentAt }: QueueRecord<z.infer<typeof syncQueueMessageSchema>>,
  app: App,
): Promise<void> {
  if ("sources" in message) {
    const deps = { log: app.log, sync: app.syncSource, queue: app.syncQueue };
    return void (await runPollBatch(deps, message, sentAt));
  }
  app.log.appendKeys({ user: message.user, sourceId: message.sourceId });
  if (message.reason === "upkeep") return void (await app.connect?.upkeep(message));
  const outcome = await app.syncSource(message, sentAt, messageId);
  app.log.info("sync done", {
    outcome: outcome.kind,
    ...("reason" in outcome ? { why: outcome.reason } : {}),
  });
}

/** The poll: enqueue a check of every source whose poll slot the last run ended, in batches. */
export async function pollDue(app: App): Promise<{ enqueued: number }> {
  const due = await app.admin.sourcesDue(app.clock.now());
  const messages = await sendPollChecks(app.syncQueue, due);
  app.log.info("poll", { due: due.length, messages });
  return { enqueued: due.length };
}

/** The tick: enqueue each transition due in the next 70 s with its exact-second delay, and each due push upkeep. */
export async function tickOnce(app: App): Promise<{ enqueued: number }> {
  const enqueued = await app.useCases.tick();
  // Push channels whose upkeep (renewal, retry, repair) is due: lib/app/push/schedule.ts.
  const upkeeps = (await app.connect?.enqueueDueUpkeeps()) ?? 0;
  app.log.info("tick", { enqueued, upkeeps });
  return { enqueued };
}
