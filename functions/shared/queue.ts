import { BatchProcessor, EventType, processPartialResponse } from "@aws-lambda-powertools/batch";
import { parser } from "@aws-lambda-powertools/parser/middleware";
import middy, { type MiddlewareObj } from "@middy/core";
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import * as z from "zod";
import type { App } from "#lib/app/compose/app";
import { countDeadLetter } from "#lib/app/metrics/catalog";
import { withCallDeadline } from "#lib/service/call-deadline";
import { type AppSource, appIn, withApp } from "./app-context";

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
   * Handle a batch's records at once (Powertools' `processInParallel`); the bound is the
   * function's batch size in serverless.yml. The handler must then not set per-record log
   * keys: the records share the logger.
   */
  parallel?: boolean;
}

/**
 * Kept back from the Lambda's remaining time: a message whose calls are cut off at its deadline
 * still records the failure, and the handler answers before the timeout.
 */
const DEADLINE_RESERVE_MS = 3_000;
/** A record not started with this little time left is handed back to the queue untouched. */
const MIN_START_MS = 2_000;

/** The Lambda's time left for the batch's work; unbounded for a context that cannot tell. */
const timeLeftOf = (context: Context): number =>
  typeof context.getRemainingTimeInMillis === "function"
    ? context.getRemainingTimeInMillis() - DEADLINE_RESERVE_MS
    : Number.POSITIVE_INFINITY;

/** A record the batch had no time left to start: reported as a failure, received again. */
export class NoTimeLeft extends Error {
  override name = "NoTimeLeft";
  readonly code = "no_time_left";
}

/**
 * Receives before SQS moves a message to its dead-letter queue: both queues' `maxReceiveCount`
 * in infra/resources/queues.yml (a test over the packaged stack checks they agree).
 */
export const MAX_RECEIVE_COUNT = 5;

/** Counts a record that failed on its last receive: it goes to the dead-letter queue now. */
function countIfDeadLetter(record: SQSRecord, app: App): void {
  const receives = Number(record.attributes?.ApproximateReceiveCount);
  if (app.metrics !== undefined && receives >= MAX_RECEIVE_COUNT) countDeadLetter(app.metrics);
}

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
 * BatchProcessor hands each record to `fn`, with its service calls cut off at a deadline taken
 * from the Lambda's remaining time, and reports every record that could not be read, whose
 * handling threw, or that had no time left to start, in `batchItemFailures`: only those are
 * received again and, after maxReceiveCount, land in the dead-letter queue, where an unreadable
 * one can be inspected.
 */
export function queueHandler<S extends z.ZodType>(
  source: AppSource,
  schema: S,
  fn: (record: QueueRecord<z.infer<S>>, app: App) => Promise<void>,
  options: QueueHandlerOptions = {},
) {
  const parallel = options.parallel === true;
  const handleRecord = (record: SQSRecord, app: App, context: Context): Promise<void> => {
    const left = timeLeftOf(context);
    if (left < MIN_START_MS) {
      app.log.warn("no time left for the message; handed back to the queue", {
        messageId: record.messageId,
      });
      return Promise.reject(new NoTimeLeft(`${left} ms left, under ${MIN_START_MS}`));
    }
    return withCallDeadline(left, () => handleOne(record, app)).catch((error: unknown) => {
      countIfDeadLetter(record, app);
      throw error;
    });
  };
  const handleOne = async (record: SQSRecord, app: App): Promise<void> => {
    if (!parallel) app.log.resetKeys();
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
    .use(withApp(source))
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
        (record: SQSRecord) => handleRecord(record, app, context),
        new BatchProcessor(EventType.SQS),
        { context, processInParallel: parallel, throwOnFullBatchFailure: false },
      );
    });
}

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
  reason: z.enum(["transition", "retry", "timeline", "user_change", "ooo", "notice"]),
  change: userChangeSchema.optional(),
  notice: z.object({ force: z.literal(true).optional() }).optional(),
});

/**
 * The transition queue's chain: a batch's records (at most 10, serverless.yml) run at once, so
 * the handler names the user in each line's data instead of as a log key.
 */
export const transitionQueueHandler = (
  source: AppSource,
  fn: (record: QueueRecord<z.infer<typeof transitionMessageSchema>>, app: App) => Promise<void>,
) => queueHandler(source, transitionMessageSchema, fn, { parallel: true });
