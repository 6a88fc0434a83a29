import middy from "@middy/core";
import type { Context, SQSBatchResponse, SQSEvent } from "aws-lambda";
import * as z from "zod";
import { type App, getApp } from "../../lib/app/root";

const sqsEventSchema = z.object({
  Records: z.array(
    z
      .object({
        messageId: z.string().min(1),
        body: z.string(),
        attributes: z.object({ SentTimestamp: z.string().optional() }).loose().optional(),
      })
      .loose(),
  ),
});

export interface QueueRecord<M> {
  message: M;
  messageId: string;
  /** When the message was sent (epoch ms), if the queue said. */
  sentAt: number | undefined;
}

/**
 * The middy chain the queue functions share: each record is parsed with `schema` and handled
 * on its own. A record that cannot be parsed, or whose handling throws, is logged and reported in
 * `batchItemFailures`: only it is received again and, after maxReceiveCount, it lands in the
 * dead-letter queue, where an unreadable record can be inspected instead of vanishing.
 */
export function queueHandler<S extends z.ZodType>(
  schema: S,
  fn: (record: QueueRecord<z.infer<S>>, app: App) => Promise<void>,
) {
  return middy<SQSEvent, SQSBatchResponse, Error, Context>().handler(async (event) => {
    const app = await getApp();
    const parsed = sqsEventSchema.safeParse(event);
    if (!parsed.success) {
      app.log.error("not an SQS event; nothing done");
      return { batchItemFailures: [] };
    }
    const failures: SQSBatchResponse["batchItemFailures"] = [];
    for (const record of parsed.data.Records) {
      app.log.resetKeys();
      let message: z.infer<S>;
      try {
        const result = schema.safeParse(JSON.parse(record.body));
        if (!result.success) throw result.error;
        message = result.data;
      } catch (error: unknown) {
        app.log.error("message unreadable; left for the dead-letter queue", {
          messageId: record.messageId,
          reason: error instanceof Error ? error.message.slice(0, 300) : "unknown",
        });
        failures.push({ itemIdentifier: record.messageId });
        continue;
      }
      const sent = Number(record.attributes?.SentTimestamp);
      try {
        await fn(
          {
            message,
            messageId: record.messageId,
            sentAt: Number.isFinite(sent) ? sent : undefined,
          },
          app,
        );
      } catch (error: unknown) {
        app.log.error("message failed; will retry", {
          messageId: record.messageId,
          error:
            error instanceof Error ? { name: error.name, message: error.message } : String(error),
        });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  });
}

export const syncMessageSchema = z.object({
  team: z.string().min(1),
  user: z.string().min(1),
  sourceId: z.string().min(1),
  reason: z.enum(["push", "poll", "manual"]),
});

/** A `user_change` the events endpoint acknowledged before recording it (lib/core UserChange). */
const userChangeSchema = z.object({
  eventId: z.string().min(1),
  eventTime: z.number().nonnegative(),
  key: z.object({ team: z.string().min(1), user: z.string().min(1) }),
  tz: z.string().min(1).optional(),
  status: z.object({
    text: z.string(),
    emoji: z.string(),
    expiration: z.number().int().nonnegative(),
  }),
});

export const transitionMessageSchema = z.object({
  team: z.string().min(1),
  user: z.string().min(1),
  at: z.number().int(),
  reason: z.enum(["transition", "retry", "timeline", "user_change", "ooo"]),
  change: userChangeSchema.optional(),
});
