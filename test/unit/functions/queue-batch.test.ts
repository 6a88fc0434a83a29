import type { SQSEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import * as z from "zod";
import { queueHandler } from "#functions/shared/queue";
import type { App } from "#lib/app/compose/app";
import { createLog } from "#lib/app/compose/logger";
import { ManualClock } from "#lib/core/clock";
import { silentMetrics } from "#lib/core/ports";
import { withCallDeadline } from "#lib/service/call-deadline";
import { ServiceTransport } from "#lib/service/transport";
import { lambdaContext } from "../../support/lambda";

/* A queue batch: its records at once when asked, and none started past the Lambda's time. */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function bareApp(): App {
  const log = createLog({ level: "SILENT" });
  return {
    config: { LOG_LEVEL: "SILENT" } as App["config"],
    clock: new ManualClock(0),
    log,
    metrics: silentMetrics,
  } as unknown as App;
}

const contextWith = lambdaContext;

const eventOf = (ids: string[]) =>
  ({
    Records: ids.map((id) => ({
      messageId: id,
      body: JSON.stringify({ id }),
      attributes: { SentTimestamp: "1000", ApproximateReceiveCount: "1" },
    })),
  }) as unknown as SQSEvent;

const schema = z.object({ id: z.string() });

describe("the queue chain's batch", () => {
  it("handles a batch's records at once when parallel, and reports only the ones that threw", async () => {
    // Prepare: 7 records, each taking 20 ms; one fails
    const app = bareApp();
    let running = 0;
    let most = 0;
    const handler = queueHandler(
      () => app,
      schema,
      async ({ message }) => {
        running++;
        most = Math.max(most, running);
        await sleep(20);
        running--;
        if (message.id === "m4") throw new Error("failed");
      },
      { parallel: true },
    );
    // Act
    const result = await handler(
      eventOf(["m1", "m2", "m3", "m4", "m5", "m6", "m7"]),
      contextWith(() => 30_000),
    );
    // Assess: all 7 ran together (the bound is the batch size)
    expect(most).toBe(7);
    expect(result).toEqual({ batchItemFailures: [{ itemIdentifier: "m4" }] });
  });

  it("hands back untouched, as failures, the records it has no time left to start", async () => {
    // Prepare: one at a time; 3 s are kept back and a record starts only with 2 s more, so with
    // 12 s left and 3 s a record, m0 (12 s), m1 (9 s) and m2 (6 s) start, and m3 (3 s) does not
    const app = bareApp();
    let left = 12_000;
    const started: string[] = [];
    const handler = queueHandler(
      () => app,
      schema,
      async ({ message }) => {
        started.push(message.id);
        left -= 3_000;
      },
    );
    const ids = Array.from({ length: 10 }, (_, i) => `m${i}`);
    // Act
    const result = await handler(
      eventOf(ids),
      contextWith(() => left),
    );
    // Assess
    expect(started).toEqual(["m0", "m1", "m2"]);
    expect(result.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(ids.slice(3));
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
