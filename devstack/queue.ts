import { createHash, randomUUID } from "node:crypto";
import type { SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import type { Log, Queue, QueueEntry, SendOptions } from "#lib/core/ports";
import { QUEUE_BATCH_MAX, silentLog } from "#lib/core/ports";
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from "./lambda-context";
import type { Scheduler } from "./scheduler";

/** SQS's own bounds for DelaySeconds. */
const MAX_DELAY_S = 900;

export interface DelayQueueOptions {
  /** Queue name, used in the ARN and in logs. */
  name: string;
  scheduler: Scheduler;
  /** The queue's Lambda: receives an SQS event, may report `batchItemFailures`. */
  consume: (event: SQSEvent) => Promise<unknown>;
  batchSize?: number;
  /** Receives before a message moves to the dead-letter queue (SQS `maxReceiveCount`). */
  maxReceives?: number;
  /** Wait before a failed message is visible again, by its receive count so far. */
  backoffMs?: (receiveCount: number) => number;
  /**
   * The queue's VisibilityTimeout: a batch whose handler timed out (threw an
   * `InvocationTimeoutError`) is redelivered whole once this has passed, as SQS does.
   * Without it, the backoff applies.
   */
  visibilityTimeoutMs?: number;
  /**
   * Share of sends delivered twice (0 to 1), because SQS standard is at-least-once and the
   * consumer must tolerate it. 0 by default (`npm start`); the soak sets about 1%.
   */
  duplicateRate?: number;
  /** Seed of the duplicate draw, so a run with duplicates can be replayed. */
  seed?: number;
  /**
   * Receive messages that become visible at the same instant together, in batches of
   * `batchSize`, as Lambda's poller does. Off by default for the bench and soak, whose figures
   * were measured with one message per delivery; the dev stack turns it on.
   */
  batchSameInstant?: boolean;
  log?: Log;
}

/** mulberry32: a small seeded generator, enough to pick which sends get a duplicate. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Thrown by a consumer cut off at its function's timeout (see devstack/runtime). */
const isTimeout = (error: unknown): boolean =>
  error instanceof Error && error.name === "InvocationTimeoutError";

export interface DeadLetter<M> {
  messageId: string;
  message: M;
  receiveCount: number;
  reason: string;
}

export interface DelayQueueStats {
  sent: number;
  /** Extra deliveries of a sent message (SQS standard's at-least-once). */
  duplicated: number;
  /** Messages waiting for their delay or their retry backoff to pass. */
  waiting: number;
  inFlight: number;
  succeeded: number;
  redelivered: number;
  deadLettered: number;
}

interface Envelope<M> {
  messageId: string;
  message: M;
  body: string;
  sentAt: number;
  firstReceivedAt?: number;
  receiveCount: number;
}

/** The ids a queue handler reported in `batchItemFailures`; anything else means all succeeded. */
const failedItemIds = (result: unknown): string[] => {
  if (typeof result !== "object" || result === null || !("batchItemFailures" in result)) return [];
  const failures = (result as SQSBatchResponse).batchItemFailures;
  if (!Array.isArray(failures)) return [];
  return failures
    .map((f: unknown) =>
      typeof f === "object" && f !== null && "itemIdentifier" in f ? String(f.itemIdentifier) : "",
    )
    .filter((id) => id !== "");
};

export class DelayQueueError extends Error {
  constructor(
    message: string,
    readonly code: "invalid_delay" | "unserializable" | "batch_too_large",
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "DelayQueueError";
  }
}

/**
 * An in-process SQS: per-message delay on the scheduler's clock, batched delivery to the
 * queue's Lambda, partial batch failures redelivered with backoff, and a dead-letter queue
 * after `maxReceives`, all counted so a soak can assert nothing was lost.
 */
export class DelayQueue<M> implements Queue<M> {
  private readonly visible: Array<Envelope<M>> = [];
  private readonly dead: Array<DeadLetter<M>> = [];
  /** Messages waiting to become visible, by the instant they do. */
  private readonly due = new Map<number, Array<Envelope<M>>>();
  private readonly cancels = new Set<() => void>();
  private counts = {
    sent: 0,
    duplicated: 0,
    waiting: 0,
    inFlight: 0,
    succeeded: 0,
    redelivered: 0,
  };
  private closed = false;
  private readonly batchSize: number;
  private readonly maxReceives: number;
  private readonly backoffMs: (receiveCount: number) => number;
  private readonly log: Log;
  private readonly duplicateRate: number;
  private readonly random: () => number;
  readonly arn: string;

  constructor(private readonly options: DelayQueueOptions) {
    this.batchSize = options.batchSize ?? 10;
    this.maxReceives = options.maxReceives ?? 5;
    this.backoffMs = options.backoffMs ?? ((n) => Math.min(60_000, 1_000 * 2 ** (n - 1)));
    this.log = options.log ?? silentLog;
    this.duplicateRate = options.duplicateRate ?? 0;
    this.random = seededRandom(options.seed ?? 1);
    this.arn = `arn:aws:sqs:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:${options.name}`;
  }

  /**
   * SendMessageBatch: up to ten messages, each with its own delay and taken as `send` takes it.
   * Every entry is checked before any is queued, so a refused batch queues nothing.
   */
  async sendBatch(entries: ReadonlyArray<QueueEntry<M>>): Promise<void> {
    if (entries.length > QUEUE_BATCH_MAX) {
      throw new DelayQueueError(
        `a batch holds at most ${QUEUE_BATCH_MAX} messages, got ${entries.length}`,
        "batch_too_large",
      );
    }
    const bodies = entries.map((e) => this.checked(e.message, e.delaySeconds));
    entries.forEach((e, i) => {
      this.enqueue(e.message, bodies[i] as string, e.delaySeconds ?? 0);
    });
  }

  /** `dedupeKey` is accepted and ignored, as SQS standard ignores a deduplication id. */
  async send(message: M, opts: SendOptions = {}): Promise<void> {
    const body = this.checked(message, opts.delaySeconds);
    this.enqueue(message, body, opts.delaySeconds ?? 0);
  }

  /** The message's JSON body, once its delay is one SQS takes. */
  private checked(message: M, delaySeconds = 0): string {
    if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > MAX_DELAY_S) {
      throw new DelayQueueError(
        `delaySeconds must be an integer from 0 to ${MAX_DELAY_S}, got ${delaySeconds}`,
        "invalid_delay",
      );
    }
    try {
      return JSON.stringify(message);
    } catch (error: unknown) {
      throw new DelayQueueError("message is not JSON-serializable", "unserializable", {
        cause: error,
      });
    }
  }

  private enqueue(message: M, body: string, delaySeconds: number): void {
    const now = this.options.scheduler.clock.now();
    this.counts.sent++;
    const copies = this.duplicateRate > 0 && this.random() < this.duplicateRate ? 2 : 1;
    if (copies === 2) this.counts.duplicated++;
    for (let i = 0; i < copies; i++) {
      // A duplicate is a second delivery of the same message: same body, its own receipt.
      const envelope: Envelope<M> = {
        messageId: randomUUID(),
        message,
        body,
        sentAt: now,
        receiveCount: 0,
      };
      this.makeVisibleAt(envelope, now + delaySeconds * 1000);
    }
  }

  private makeVisibleAt(envelope: Envelope<M>, at: number): void {
    if (this.closed) return;
    this.counts.waiting++;
    // Messages visible at the same instant are received together, in batches, as a poller
    // would take them; one scheduled task per instant.
    const sameInstant = this.options.batchSameInstant ? this.due.get(at) : undefined;
    if (sameInstant) {
      sameInstant.push(envelope);
      return;
    }
    const envelopes = [envelope];
    if (this.options.batchSameInstant) this.due.set(at, envelopes);
    const cancel = this.options.scheduler.at(at, () => {
      this.cancels.delete(cancel);
      if (this.due.get(at) === envelopes) this.due.delete(at);
      this.counts.waiting -= envelopes.length;
      this.visible.push(...envelopes);
      return this.flush();
    });
    this.cancels.add(cancel);
  }

  /** Delivers every visible message, in batches, and waits for the consumer. */
  private async flush(): Promise<void> {
    const batches: Array<Array<Envelope<M>>> = [];
    while (this.visible.length > 0) batches.push(this.visible.splice(0, this.batchSize));
    await Promise.all(batches.map((b) => this.deliver(b)));
  }

  private async deliver(batch: Array<Envelope<M>>): Promise<void> {
    const now = this.options.scheduler.clock.now();
    for (const e of batch) {
      e.receiveCount++;
      e.firstReceivedAt ??= now;
    }
    this.counts.inFlight += batch.length;
    let failedIds: Set<string>;
    let reason = "reported in batchItemFailures";
    let timedOut = false;
    try {
      const result = await this.options.consume({ Records: batch.map((e) => this.toRecord(e)) });
      failedIds = new Set(failedItemIds(result));
    } catch (error: unknown) {
      // A thrown handler fails the whole batch, as with Lambda's SQS integration.
      reason =
        error instanceof Error ? `handler threw ${error.name}: ${error.message}` : "handler threw";
      this.log.warn("queue handler failed the whole batch", { queue: this.options.name, reason });
      failedIds = new Set(batch.map((e) => e.messageId));
      timedOut = isTimeout(error);
    } finally {
      this.counts.inFlight -= batch.length;
    }
    for (const e of batch) {
      if (!failedIds.has(e.messageId)) {
        this.counts.succeeded++;
      } else if (e.receiveCount >= this.maxReceives) {
        this.dead.push({
          messageId: e.messageId,
          message: e.message,
          receiveCount: e.receiveCount,
          reason,
        });
        this.log.error("message moved to the dead-letter queue", {
          queue: this.options.name,
          messageId: e.messageId,
          receiveCount: e.receiveCount,
        });
      } else {
        this.counts.redelivered++;
        const wait =
          timedOut && this.options.visibilityTimeoutMs !== undefined
            ? // The receipt stays invisible for the rest of its visibility timeout.
              Math.max(
                0,
                now + this.options.visibilityTimeoutMs - this.options.scheduler.clock.now(),
              )
            : this.backoffMs(e.receiveCount);
        this.makeVisibleAt(e, this.options.scheduler.clock.now() + wait);
      }
    }
  }

  private toRecord(e: Envelope<M>): SQSRecord {
    return {
      messageId: e.messageId,
      receiptHandle: `${e.messageId}#${e.receiveCount}`,
      body: e.body,
      attributes: {
        ApproximateReceiveCount: String(e.receiveCount),
        SentTimestamp: String(e.sentAt),
        SenderId: LOCAL_ACCOUNT_ID,
        ApproximateFirstReceiveTimestamp: String(e.firstReceivedAt ?? e.sentAt),
      },
      messageAttributes: {},
      md5OfBody: createHash("md5").update(e.body).digest("hex"),
      eventSource: "aws:sqs",
      eventSourceARN: this.arn,
      awsRegion: LOCAL_REGION,
    };
  }

  stats(): DelayQueueStats {
    return { ...this.counts, deadLettered: this.dead.length };
  }

  deadLetters(): ReadonlyArray<DeadLetter<M>> {
    return this.dead;
  }

  close(): void {
    this.closed = true;
    for (const cancel of this.cancels) cancel();
    this.cancels.clear();
    this.due.clear();
  }
}
