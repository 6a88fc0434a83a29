import { parser } from "@aws-lambda-powertools/parser/middleware";
import middy, { type MiddlewareObj } from "@middy/core";
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import * as z from "zod";
import type { App } from "../../lib/app/root";
import { withCallDeadline } from "../../lib/service/call-deadline";
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

/** Options of a queue function's chain. */
export interface QueueHandlerOptions {
  /**
   * Records of a batch handled at once (1: one after another). Above 1, the handler must not
   * set per-record log keys: the records share the logger.
   */
  concurrency?: number;
}

/**
 * Kept back from the Lambda's remaining time: a message whose calls are cut off at its deadline
 * still records the failure and the handler answers before the timeout.
 */
const DEADLINE_RESERVE_MS = 3_000;
/** A record not started with this little time left is handed back to the queue untouched. */
const MIN_START_MS = 2_000;

/** The Lambda's time left for the batch's work; unbounded for a context that cannot tell. */
const timeLeftOf = (context: Context): number =>
  typeof context.getRemainingTimeInMillis === "function"
    ? context.getRemainingTimeInMillis() - DEADLINE_RESERVE_MS
    : Number.POSITIVE_INFINITY;

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
 * The middy chain the queue functions share. The parser middleware checks the event;
 * `handleBatch` hands each record to `fn` (with a deadline from the Lambda's remaining time) and
 * reports every record that could not be read, whose handling threw, or that had no time left,
 * in `batchItemFailures`: only those are received again and, after maxReceiveCount, land in
 * the dead-letter queue, where an unreadable one can be inspected.
 */
export function queueHandler<S extends z.ZodType>(
  schema: S,
  fn: (record: QueueRecord<z.infer<S>>, app: App) => Promise<void>,
  options: QueueHandlerOptions = {},
) {
  const concurrency = Math.max(1, options.concurrency ?? 1);
  const handleRecord = async (record: SQSRecord, app: App): Promise<void> => {
    if (concurrency === 1) app.log.resetKeys();
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
      return handleBatch(event.data.Records, (record) => handleRecord(record, app), {
        concurrency,
        timeLeftMs: () => timeLeftOf(context),
        onUnstarted: (record) =>
          app.log.warn("no time left for the message; handed back to the queue", {
            messageId: record.messageId,
          }),
      });
    });
}

/**
 * Handles a batch's records, `concurrency` at a time, each with its service calls cut off when
 * the batch's time runs out. Every record that could not be read, whose handling threw, or
 * that was never started for want of time is reported in `batchItemFailures`: only those are
 * received again and, after maxReceiveCount, land in the dead-letter queue.
 */
export async function handleBatch(
  records: SQSRecord[],
  handle: (record: SQSRecord) => Promise<void>,
  opts: {
    concurrency: number;
    timeLeftMs: () => number;
    onUnstarted: (record: SQSRecord) => void;
  },
): Promise<SQSBatchResponse> {
  const failed = new Set<string>();
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < records.length; i = next++) {
      const record = records[i] as SQSRecord;
      const left = opts.timeLeftMs();
      if (left < MIN_START_MS) {
        opts.onUnstarted(record);
        failed.add(record.messageId);
        continue;
      }
      try {
        await withCallDeadline(left, () => handle(record));
      } catch {
        failed.add(record.messageId);
      }
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(opts.concurrency, records.length) }, () => worker()),
  );
  // In the batch's order, as the queue received them.
  return {
    batchItemFailures: records
      .filter((r) => failed.has(r.messageId))
      .map((r) => ({ itemIdentifier: r.messageId })),
  };
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

/** A transition batch's records all at once: a batch holds at most 10 (serverless.yml). */
const TRANSITION_CONCURRENCY = 10;

/**
 * The transition queue's chain: its records run concurrently, so the handler names the user in
 * each line's data instead of as a log key.
 */
export const transitionQueueHandler = (
  fn: (record: QueueRecord<z.infer<typeof transitionMessageSchema>>, app: App) => Promise<void>,
) => queueHandler(transitionMessageSchema, fn, { concurrency: TRANSITION_CONCURRENCY });
