import type { SQSRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { handleBatch } from "../../../functions/shared/queue";
import { ManualClock } from "../../../lib/core/clock";
import { withCallDeadline } from "../../../lib/service/call-deadline";
import { ServiceTransport } from "../../../lib/service/transport";

/* A queue batch: its records at once up to a bound, and none past the Lambda's time. */

const recordOf = (id: string): SQSRecord => ({ messageId: id, body: "{}" }) as SQSRecord;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("handleBatch", () => {
  it("runs at most `concurrency` records at once and reports the ones that threw", async () => {
    // Prepare
    const records = ["m1", "m2", "m3", "m4", "m5", "m6", "m7"].map(recordOf);
    let running = 0;
    let most = 0;
    const started: string[] = [];
    // Act
    const result = await handleBatch(
      records,
      async (record) => {
        started.push(record.messageId);
        running++;
        most = Math.max(most, running);
        await sleep(5);
        running--;
        if (record.messageId === "m4") throw new Error("failed");
      },
      { concurrency: 3, timeLeftMs: () => 30_000, onUnstarted: () => {} },
    );
    // Assess
    expect(most).toBe(3);
    expect(started.sort()).toEqual(["m1", "m2", "m3", "m4", "m5", "m6", "m7"]);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: "m4" }] });
  });

  it("hands back untouched, as failures, the records it has no time left to start", async () => {
    // Prepare: 10 records one at a time; the Lambda's time runs out after the third
    const records = Array.from({ length: 10 }, (_, i) => recordOf(`m${i}`));
    let left = 9_000;
    const started: string[] = [];
    const unstarted: string[] = [];
    // Act
    const result = await handleBatch(
      records,
      async (record) => {
        started.push(record.messageId);
        left -= 3_000;
      },
      { concurrency: 1, timeLeftMs: () => left, onUnstarted: (r) => unstarted.push(r.messageId) },
    );
    // Assess: a record starts only with 2 s or more left (9, 6 and 3 s)
    expect(started).toEqual(["m0", "m1", "m2"]);
    expect(unstarted).toEqual(["m3", "m4", "m5", "m6", "m7", "m8", "m9"]);
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(unstarted);
  });
});

describe("a service call under a message's deadline", () => {
  it("is cut off when the deadline comes before the transport's own timeout", async () => {
    // Prepare: a service that never answers, a transport that would wait 10 s
    const transport = new ServiceTransport({
      baseUrl: "http://service.invalid/api",
      clock: new ManualClock(0),
      timeoutMs: 10_000,
      fetch: (_url, init) =>
        new Promise((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(init.signal?.reason));
        }),
    });
    const t0 = performance.now();
    // Act
    const error = await withCallDeadline(50, () =>
      transport.post("users.profile.set", "xoxp-1", {}, { encoding: "json" }),
    ).catch((e: unknown) => e);
    // Assess
    expect(error).toMatchObject({ code: "timeout", retryable: true });
    expect(performance.now() - t0).toBeLessThan(2_000);
  });
});
