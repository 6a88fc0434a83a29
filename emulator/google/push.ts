import type { Log } from "#lib/core/ports";
import { DeliveryJobs } from "../delivery-jobs";

/**
 * Delivers push notification messages: a POST to the channel's address with the X-Goog-*
 * headers and no body. 200, 201, 202, 204 and 102 are success; on 500, 502, 503 or 504 (and,
 * here, a connection failure or timeout) the message is retried with exponential backoff; any
 * other status fails it for good.
 */

export interface PushMessage {
  channelId: string;
  address: string;
  headers: Record<string, string>;
  state: string;
  messageNumber: number;
}

export interface PushRecord {
  channelId: string;
  messageNumber: number;
  state: string;
  /** The emulator clock's time of the last attempt, epoch ms. */
  at: number;
  attempts: number;
  outcome: "pending" | "delivered" | "failed";
  /** The last attempt's HTTP status; 0 for a connection failure or timeout. */
  status?: number;
}

export interface PushOptions {
  /** Waits before each retry; the attempts stop when they run out. */
  retryDelaysMs: number[];
  attemptTimeoutMs: number;
  /** Wall-clock delay between a change and its message (Google's is not public). */
  delayMs: number;
}

export const DEFAULT_PUSH: PushOptions = {
  retryDelaysMs: [1000, 2000, 4000, 8000, 16000],
  attemptTimeoutMs: 10_000,
  delayMs: 0,
};

const SUCCESS = new Set([200, 201, 202, 204, 102]);
const RETRIED = new Set([500, 502, 503, 504]);
const MAX_RECORDS = 10_000;

export class PushSender {
  readonly records: PushRecord[] = [];
  private readonly jobs = new DeliveryJobs();

  constructor(
    private readonly opts: PushOptions,
    private readonly log: Log,
    /** The emulator's clock, for the records' times. */
    private readonly now: () => number,
  ) {}

  send(msg: PushMessage): void {
    const record: PushRecord = {
      channelId: msg.channelId,
      messageNumber: msg.messageNumber,
      state: msg.state,
      at: this.now(),
      attempts: 0,
      outcome: "pending",
    };
    this.records.push(record);
    if (this.records.length > MAX_RECORDS) this.records.shift();
    this.jobs.track(this.run(msg, record));
  }

  private async run(msg: PushMessage, record: PushRecord): Promise<void> {
    // Leave after the answer of the call that caused the message (watch, an edit) is written.
    await new Promise((resolve) => setImmediate(resolve));
    if (this.opts.delayMs > 0) await this.jobs.sleep(this.opts.delayMs);
    for (let attempt = 0; !this.jobs.closed; attempt++) {
      record.attempts = attempt + 1;
      record.at = this.now();
      const status = await this.attempt(msg);
      record.status = status;
      if (SUCCESS.has(status)) {
        record.outcome = "delivered";
        return;
      }
      const delay = this.opts.retryDelaysMs[attempt];
      if ((status !== 0 && !RETRIED.has(status)) || delay === undefined) break;
      await this.jobs.sleep(delay);
    }
    record.outcome = "failed";
    this.log.warn("google push not delivered", {
      channelId: msg.channelId,
      messageNumber: msg.messageNumber,
      status: record.status,
    });
  }

  private async attempt(msg: PushMessage): Promise<number> {
    try {
      const res = await fetch(msg.address, {
        method: "POST",
        headers: { "content-type": "application/json; utf-8", ...msg.headers },
        body: "",
        signal: AbortSignal.timeout(this.opts.attemptTimeoutMs),
      });
      await res.arrayBuffer().catch(() => undefined);
      return res.status;
    } catch {
      return 0;
    }
  }

  pendingCount(): number {
    return this.jobs.count();
  }

  /** Messages on their way (not between a failed attempt and its retry). */
  underway(): number {
    return this.jobs.underway();
  }

  /** Resolves when every message so far, retries included, has been delivered or given up. */
  flush(): Promise<void> {
    return this.jobs.flush();
  }

  close(): void {
    this.jobs.close();
  }
}
