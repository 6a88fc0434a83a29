import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import type { Queue } from "#lib/core/ports";

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
   * Up to ten messages in one SendMessageBatch request. SQS may refuse some entries of an
   * accepted request: any refusal throws (the caller's retry may send the others twice, which
   * every consumer of ours tolerates: SQS standard delivers at least once anyway).
   */
  async sendBatch(messages: M[], opts?: { delaySeconds?: number }): Promise<void> {
    if (messages.length === 0) return;
    if (messages.length > 10) throw new RangeError("SendMessageBatch takes at most 10 messages");
    const delay = Math.min(MAX_DELAY_S, Math.max(0, Math.ceil(opts?.delaySeconds ?? 0)));
    const out = await this.client.send(
      new SendMessageBatchCommand({
        QueueUrl: this.queueUrl,
        Entries: messages.map((message, i) => ({
          Id: String(i),
          MessageBody: JSON.stringify(message),
          DelaySeconds: delay,
        })),
      }),
    );
    const failed = out.Failed ?? [];
    if (failed.length > 0) {
      const first = failed[0];
      throw new QueueSendError(
        `SendMessageBatch refused ${failed.length} of ${messages.length} messages (${first?.Code ?? "?"}: ${first?.Message ?? ""})`,
        failed.length,
      );
    }
  }

  async send(message: M, opts?: { delaySeconds?: number; dedupeKey?: string }): Promise<void> {
    const delay = Math.min(MAX_DELAY_S, Math.max(0, Math.ceil(opts?.delaySeconds ?? 0)));
    await this.client.send(
      new SendMessageCommand({
        QueueUrl: this.queueUrl,
        MessageBody: JSON.stringify(message),
        DelaySeconds: delay,
        ...(opts?.dedupeKey
          ? {
              MessageAttributes: { dedupeKey: { DataType: "String", StringValue: opts.dedupeKey } },
            }
          : {}),
      }),
    );
  }
}
