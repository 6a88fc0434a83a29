import { BatchProcessor, EventType, processPartialResponse } from "@aws-lambda-powertools/batch";
import { parser } from "@aws-lambda-powertools/parser/middleware";
import middy, { type MiddlewareObj } from "@middy/core";
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import * as z from "zod";
import type { App } from "../../lib/app/root";
import { SOURCE_KINDS } from "../../lib/core/source-kinds";
import { appIn, withApp } from "./app-context";

/**
 * The SQS event, for the parser middleware: what the handlers read of each record. Not
 * Powertools' `SqsRecordSchema`: it bundles zod's locales (see http-event.ts) and requires
 * attributes the local queue does not send.
 */
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

/**
 * Records are handled one after another. Bounded concurrency is `true` here plus a limit on
 * the batch size; per-record log keys would then need a child logger per record.
 */
const PROCESS_IN_PARALLEL = false;

export interface QueueRecord<M> {
  message: M;
  messageId: string;
  /** When the message was sent (epoch ms), if the queue said. */
  sentAt: number | undefined;
}

/** A record whose body is not JSON of the message's shape: retrying cannot help. */
export class UnreadableMessage extends Error {
  override name = "UnreadableMessage";
}

/** Parses one record's body with `schema`; logs why and throws UnreadableMessage if it cannot. */
function readRecord<S extends z.ZodType>(record: SQSRecord, schema: S, app: App): z.infer<S> {
  try {
    const result = schema.safeParse(JSON.parse(record.body));
    if (!result.success) throw result.error;
    return result.data;
  } catch (error: unknown) {
    const reason = error instanceof Error ? error.message.slice(0, 300) : "unknown";
    app.log.error("message unreadable; left for the dead-letter queue", {
      messageId: record.messageId,
      reason,
    });
    throw new UnreadableMessage(reason, { cause: error });
  }
}

/**
 * The middy chain the queue functions share. The parser middleware checks the event; Powertools'
 * BatchProcessor hands each record to `fn` and reports every record that could not be read, or
 * whose handling threw, in `batchItemFailures`: only those are received again and, after
 * maxReceiveCount, land in the dead-letter queue, where an unreadable one can be inspected.
 */
export function queueHandler<S extends z.ZodType>(
  schema: S,
  fn: (record: QueueRecord<z.infer<S>>, app: App) => Promise<void>,
) {
  const handleRecord = async (record: SQSRecord, app: App): Promise<void> => {
    app.log.resetKeys();
    const message = readRecord(record, schema, app);
    const sent = Number(record.attributes?.SentTimestamp);
    try {
      await fn(
        { message, messageId: record.messageId, sentAt: Number.isFinite(sent) ? sent : undefined },
        app,
      );
    } catch (error: unknown) {
      app.log.error("message failed; will retry", {
        messageId: record.messageId,
        error:
          error instanceof Error ? { name: error.name, message: error.message } : String(error),
      });
      throw error;
    }
  };
  return middy<SQSEvent, SQSBatchResponse, Error, Context>()
    .use(withApp())
    .use(
      parser({ schema: sqsEventSchema, safeParse: true }) as unknown as MiddlewareObj<
        SQSEvent,
        SQSBatchResponse
      >,
    )
    .handler(async (parsed, context) => {
      const app = appIn(context);
      const event = parsed as unknown as z.ZodSafeParseResult<SQSEvent>;
      if (!event.success) {
        app.log.error("not an SQS event; nothing done");
        return { batchItemFailures: [] };
      }
      // A processor per invocation: it holds the batch's state, and the local stack may run
      // several invocations of one function at once in one process.
      return processPartialResponse(
        event.data,
        (record: SQSRecord) => handleRecord(record, app),
        new BatchProcessor(EventType.SQS),
        { context, processInParallel: PROCESS_IN_PARALLEL, throwOnFullBatchFailure: false },
      );
    });
}

/** What the poll read of a source (lib/app/contracts KnownSource). */
const knownSourceSchema = z.object({
  kind: z.enum(SOURCE_KINDS),
  url: z.string().min(1),
  etag: z.string().optional(),
  lastModified: z.string().optional(),
  hash: z.string().optional(),
  syncedAt: z.number().optional(),
});

export const syncMessageSchema = z.object({
  team: z.string().min(1),
  user: z.string().min(1),
  sourceId: z.string().min(1),
  reason: z.enum(["push", "poll", "manual"]),
  known: knownSourceSchema.optional(),
});

/** The sync queue's messages: one source, or the poll's batch of them. */
export const syncQueueMessageSchema = z.union([
  z.object({ reason: z.literal("poll"), sources: z.array(syncMessageSchema).min(1) }),
  syncMessageSchema,
]);

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
