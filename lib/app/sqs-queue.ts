import { SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import type { Queue } from "../core/ports";

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
