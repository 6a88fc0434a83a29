import { describe, expect, it } from "vitest";
import type { PollBatchMessage, SyncMessage } from "#lib/app/contracts";
import { POLL_RETRY_DELAY_S, runPollBatch, sendPollChecks } from "#lib/app/sync/coalescing";
import type { SyncOutcome } from "#lib/app/sync/sync";
import { type Queue, type QueueEntry, silentLog } from "#lib/core/ports";

/** A queue that records each request: single sends and batches apart. */
class RequestLog<M> implements Queue<M> {
  readonly requests: Array<{ messages: M[]; delaySeconds: number; batch: boolean }> = [];
  async send(message: M, opts?: { delaySeconds?: number }): Promise<void> {
    this.requests.push({
      messages: [message],
      delaySeconds: opts?.delaySeconds ?? 0,
      batch: false,
    });
  }
  async sendBatch(entries: ReadonlyArray<QueueEntry<M>>): Promise<void> {
    const delays = new Set(entries.map((e) => e.delaySeconds ?? 0));
    if (delays.size > 1) throw new Error("the poll's batches send one delay for all");
    this.requests.push({
      messages: entries.map((e) => e.message),
      delaySeconds: [...delays][0] ?? 0,
      batch: true,
    });
  }
}

const check = (i: number): SyncMessage => ({
  team: "T1",
  user: `U${i}`,
  sourceId: "cal",
  reason: "poll",
});

describe("sendPollChecks", () => {
  it("puts ten sources in a message and ten messages in a request", async () => {
    // Prepare: 205 sources due
    const queue = new RequestLog<PollBatchMessage>();
    const due = Array.from({ length: 205 }, (_, i) => check(i));
    // Act
    const messages = await sendPollChecks(queue, due);
    // Assess: 21 messages (20 full, one of 5) in 3 requests (10, 10, 1), every source once
    expect(messages).toBe(21);
    expect(queue.requests.map((r) => r.messages.length)).toEqual([10, 10, 1]);
    const sent = queue.requests.flatMap((r) => r.messages);
    expect(sent.map((m) => m.sources.length)).toEqual([...Array(20).fill(10), 5]);
    expect(sent.flatMap((m) => m.sources)).toEqual(due);
    expect(queue.requests.every((r) => r.batch && r.delaySeconds === 0)).toBe(true);
  });

  it("sends nothing when nothing is due", async () => {
    const queue = new RequestLog<PollBatchMessage>();
    expect(await sendPollChecks(queue, [])).toBe(0);
    expect(queue.requests).toEqual([]);
  });
});

describe("runPollBatch", () => {
  it("checks every source, at most `concurrency` at a time", async () => {
    // Prepare
    let running = 0;
    let most = 0;
    const checked: string[] = [];
    const sync = async (msg: SyncMessage): Promise<SyncOutcome> => {
      running++;
      most = Math.max(most, running);
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
      checked.push(msg.user);
      return { kind: "unchanged", reason: "not_modified" };
    };
    const batch: PollBatchMessage = {
      reason: "poll",
      sources: Array.from({ length: 10 }, (_, i) => check(i)),
    };
    // Act
    const tally = await runPollBatch(
      { log: silentLog, sync, queue: new RequestLog(), concurrency: 3 },
      batch,
    );
    // Assess
    expect(most).toBe(3);
    expect(checked.sort()).toEqual(batch.sources.map((s) => s.user).sort());
    expect(tally).toEqual({ applied: 0, unchanged: 10, skipped: 0, failed: 0 });
  });

  it("queues a source whose check failed again alone, after a delay, and the rest are done", async () => {
    // Prepare
    const queue = new RequestLog<SyncMessage>();
    const sync = async (msg: SyncMessage): Promise<SyncOutcome> => {
      if (msg.user === "U2") throw new Error("the calendar's host timed out");
      return msg.user === "U0"
        ? { kind: "applied", blocks: 3, skipped: 0 }
        : { kind: "unchanged", reason: "same_content" };
    };
    const batch: PollBatchMessage = { reason: "poll", sources: [check(0), check(1), check(2)] };
    // Act
    const tally = await runPollBatch({ log: silentLog, sync, queue }, batch);
    // Assess
    expect(tally).toEqual({ applied: 1, unchanged: 1, skipped: 0, failed: 1 });
    expect(queue.requests).toEqual([
      { messages: [check(2)], delaySeconds: POLL_RETRY_DELAY_S, batch: true },
    ]);
  });

  it("throws when a failed source cannot be queued again, so the whole message comes back", async () => {
    // Prepare
    const queue = new RequestLog<SyncMessage>();
    queue.sendBatch = async () => {
      throw new Error("queue unavailable");
    };
    const sync = async (): Promise<SyncOutcome> => {
      throw new Error("the calendar's host timed out");
    };
    // Act
    const run = runPollBatch(
      { log: silentLog, sync, queue },
      { reason: "poll", sources: [check(0)] },
    );
    // Assess
    await expect(run).rejects.toThrow("queue unavailable");
  });
});
