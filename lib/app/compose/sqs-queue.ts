import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { QUEUE_BATCH_MAX, type Queue, type QueueEntry, type SendOptions } from "#lib/core/ports";

/** SQS refused some messages of a batch it accepted. */
export class QueueSendError extends Error {
  override name = "QueueSendError";
  readonly code = "queue_send_refused";
  constructor(
    message: string,
    readonly refused: number,
  ) {
    super(message);
  }
}

/** SQS caps a per-message delay at 15 minutes. */
export const MAX_DELAY_S = 900;

/** Times the entries SQS refused through no fault of ours are sent again before giving up. */
export const REFUSED_RETRIES = 1;

const clampDelay = (delaySeconds: number | undefined): number =>
  Math.min(MAX_DELAY_S, Math.max(0, Math.ceil(delaySeconds ?? 0)));

const dedupeAttribute = (dedupeKey: string | undefined) =>
  dedupeKey
    ? { MessageAttributes: { dedupeKey: { DataType: "String", StringValue: dedupeKey } } }
    : {};

/**
 * A standard SQS queue. Standard queues keep per-message `DelaySeconds` (FIFO queues do not), so
 * the dedupe key travels as a message attribute for the consumer; coalescing happens upstream.
 */
export class SqsQueue<M> implements Queue<M> {
  constructor(
    private readonly client: SQSClient,
    private readonly queueUrl: string,
  ) {}

  /**
   * Up to ten messages in one SendMessageBatch request, each with its own delay. SQS may refuse
   * some entries of a request it accepted. Those it refused through no fault of ours (an
   * internal error) are sent again, alone, REFUSED_RETRIES times: at the tick's scale a throw
   * makes the scheduler retry the whole tick, a thousand requests for one refused entry. What
   * is still refused, or refused as our fault (which no retry mends), throws naming them; the
   * caller's retry may then send the others twice, which every consumer of ours tolerates (SQS
   * standard delivers at least once anyway).
   */
  async sendBatch(entries: ReadonlyArray<QueueEntry<M>>): Promise<void> {
    if (entries.length === 0) return;
    if (entries.length > QUEUE_BATCH_MAX) {
      throw new RangeError(`SendMessageBatch takes at most ${QUEUE_BATCH_MAX} messages`);
    }
    let pending = entries.map((entry, i) => ({ id: String(i), entry }));
    for (let attempt = 0; ; attempt++) {
      const out = await this.client.send(
        new SendMessageBatchCommand({
          QueueUrl: this.queueUrl,
          Entries: pending.map(({ id, entry }) => ({
            Id: id,
            MessageBody: JSON.stringify(entry.message),
            DelaySeconds: clampDelay(entry.delaySeconds),
            ...dedupeAttribute(entry.dedupeKey),
          })),
        }),
      );
      const failed = out.Failed ?? [];
      if (failed.length === 0) return;
      const ourFault = failed.filter((f) => f.SenderFault === true);
      if (ourFault.length > 0 || attempt >= REFUSED_RETRIES) {
        const first = ourFault[0] ?? failed[0];
        throw new QueueSendError(
          `SendMessageBatch refused ${failed.length} of ${entries.length} messages (entries ${failed.map((f) => f.Id).join(", ")}; ${first?.Code ?? "?"}: ${first?.Message ?? ""})`,
          failed.length,
        );
      }
      const refused = new Set(failed.map((f) => f.Id));
      pending = pending.filter(({ id }) => refused.has(id));
    }
  }

  async send(message: M, opts?: SendOptions): Promise<void> {
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(message),
        DelaySeconds: clampDelay(opts?.delaySeconds),
        ...dedupeAttribute(opts?.dedupeKey),
      }),
    );
  }
}
