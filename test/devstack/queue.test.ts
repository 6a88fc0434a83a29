import type { SQSEvent } from "aws-lambda";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DelayQueue, DelayQueueError } from "#devstack/queue";
import { ManualScheduler } from "#devstack/scheduler";
import { ManualClock } from "#lib/core/clock";

const T0 = Date.UTC(2025, 2, 10, 12, 0, 0);

interface Msg {
  n: number;
}

const setup = (consume: (event: SQSEvent) => Promise<unknown>, maxReceives = 3) => {
  const clock = new ManualClock(T0);
  const scheduler = new ManualScheduler(clock);
  const queue = new DelayQueue<Msg>({
    name: "transition",
    scheduler,
    consume,
    maxReceives,
    backoffMs: (n) => n * 1000,
  });
  return { clock, scheduler, queue };
};

const bodies = (event: SQSEvent): Msg[] => event.Records.map((r) => JSON.parse(r.body) as Msg);

describe("DelayQueue", () => {
  it("delivers a message exactly when its delay has passed, as an SQS record", async () => {
    // Prepare
    const seen: Array<{ at: number; event: SQSEvent }> = [];
    const { clock, scheduler, queue } = setup(async (event) => {
      seen.push({ at: clock.now(), event });
    });
    await queue.send({ n: 1 }, { delaySeconds: 7 });
    // Act
    await scheduler.advance(6_999);
    const beforeDue = seen.length;
    await scheduler.advance(1);
    // Assess
    expect(beforeDue).toBe(0);
    expect(seen).toHaveLength(1);
    expect(seen[0]?.at).toBe(T0 + 7_000);
    const record = seen[0]?.event.Records[0];
    expect(record).toMatchObject({
      eventSource: "aws:sqs",
      eventSourceARN: "arn:aws:sqs:us-east-1:000000000000:transition",
      attributes: { ApproximateReceiveCount: "1", SentTimestamp: String(T0) },
    });
    expect(JSON.parse(record?.body ?? "null")).toEqual({ n: 1 });
    expect(queue.stats()).toMatchObject({ sent: 1, succeeded: 1, waiting: 0, inFlight: 0 });
  });

  it("delivers each entry of a batch after its own delay, and queues nothing of a batch it refuses", async () => {
    // Prepare
    const seen: Array<{ at: number; n: number[] }> = [];
    const { clock, scheduler, queue } = setup(async (event) => {
      seen.push({ at: clock.now(), n: bodies(event).map((m) => m.n) });
    });
    // Act
    await queue.sendBatch([
      { message: { n: 1 }, delaySeconds: 30 },
      { message: { n: 2 }, delaySeconds: 5 },
      { message: { n: 3 } },
    ]);
    const refused = queue.sendBatch([
      { message: { n: 4 }, delaySeconds: 1 },
      { message: { n: 5 }, delaySeconds: 901 },
    ]);
    await expect(refused).rejects.toMatchObject({ code: "invalid_delay" });
    await scheduler.advance(60_000);
    // Assess: 3 at once, 2 after 5 s, 1 after 30 s; nothing of the refused batch
    expect(seen).toEqual([
      { at: T0, n: [3] },
      { at: T0 + 5_000, n: [2] },
      { at: T0 + 30_000, n: [1] },
    ]);
    expect(queue.stats()).toMatchObject({ sent: 3, succeeded: 3 });
  });

  it("redelivers only the items reported in batchItemFailures, with a growing receive count", async () => {
    // Prepare
    const deliveries: Array<{ at: number; n: number[]; count: string[] }> = [];
    let failOnce = true;
    const { clock, scheduler, queue } = setup(async (event) => {
      deliveries.push({
        at: clock.now(),
        n: bodies(event).map((m) => m.n),
        count: event.Records.map((r) => r.attributes.ApproximateReceiveCount),
      });
      const second = event.Records.find((r) => JSON.parse(r.body).n === 2);
      if (failOnce && second) {
        failOnce = false;
        return { batchItemFailures: [{ itemIdentifier: second.messageId }] };
      }
      return { batchItemFailures: [] };
    });
    await queue.send({ n: 1 });
    await queue.send({ n: 2 });
    // Act
    await scheduler.advance(5_000);
    // Assess
    expect(deliveries.flatMap((d) => d.n).sort()).toEqual([1, 2, 2]);
    const retry = deliveries.at(-1);
    expect(retry).toEqual({ at: T0 + 1_000, n: [2], count: ["2"] });
    expect(queue.stats()).toMatchObject({ sent: 2, succeeded: 2, redelivered: 1, deadLettered: 0 });
  });

  it("moves a message that keeps failing to the dead-letter queue after maxReceives", async () => {
    // Prepare
    let receives = 0;
    const { scheduler, queue } = setup(async () => {
      receives++;
      throw new Error("store unavailable");
    }, 3);
    await queue.send({ n: 9 });
    // Act
    await scheduler.advance(60_000);
    // Assess
    expect(receives).toBe(3);
    expect(queue.stats()).toMatchObject({ succeeded: 0, deadLettered: 1, waiting: 0 });
    expect(queue.deadLetters()[0]).toMatchObject({
      message: { n: 9 },
      receiveCount: 3,
      reason: "handler threw Error: store unavailable",
    });
  });

  it("delivers every message even when they share a dedupe key, as SQS standard ignores it", async () => {
    // Prepare
    const got: number[] = [];
    const { scheduler, queue } = setup(async (event) => {
      got.push(...bodies(event).map((m) => m.n));
    });
    // Act
    await queue.send({ n: 1 }, { dedupeKey: "U001@12:00:20" });
    await queue.send({ n: 2 }, { dedupeKey: "U001@12:00:20" });
    await scheduler.advance(1_000);
    // Assess
    expect(got.sort()).toEqual([1, 2]);
    expect(queue.stats()).toMatchObject({ sent: 2, succeeded: 2 });
  });

  it("delivers about the configured share of sends twice, the same draw for the same seed", async () => {
    // Prepare: 1,000 sends at a 5% duplicate rate.
    const run = async (seed: number) => {
      const got: number[] = [];
      const clock = new ManualClock(T0);
      const scheduler = new ManualScheduler(clock);
      const queue = new DelayQueue<Msg>({
        name: "sync",
        scheduler,
        consume: async (event) => {
          got.push(...bodies(event).map((m) => m.n));
        },
        duplicateRate: 0.05,
        seed,
      });
      for (let n = 0; n < 1_000; n++) await queue.send({ n });
      await scheduler.advance(1_000);
      return { got, stats: queue.stats() };
    };
    // Act
    const first = await run(7);
    const again = await run(7);
    // Assess: every message at least once; the extras are whole second deliveries.
    const counts = new Map<number, number>();
    for (const n of first.got) counts.set(n, (counts.get(n) ?? 0) + 1);
    expect(counts.size).toBe(1_000);
    const twice = [...counts.values()].filter((c) => c === 2).length;
    expect([...counts.values()].every((c) => c === 1 || c === 2)).toBe(true);
    expect(twice).toBeGreaterThan(25);
    expect(twice).toBeLessThan(75);
    expect(first.got.length).toBe(1_000 + twice);
    expect(first.stats).toMatchObject({ sent: 1_000, duplicated: twice });
    expect(again.got.sort()).toEqual(first.got.sort());
  });

  it("delivers no duplicate by default", async () => {
    // Prepare
    const got: number[] = [];
    const { scheduler, queue } = setup(async (event) => {
      got.push(...bodies(event).map((m) => m.n));
    });
    // Act
    for (let n = 0; n < 500; n++) await queue.send({ n });
    await scheduler.advance(1_000);
    // Assess
    expect(got.length).toBe(500);
  });

  it("rejects a delay SQS would reject, with a clear error", async () => {
    // Prepare
    const { queue } = setup(async () => {});
    // Act / Assess
    await expect(queue.send({ n: 1 }, { delaySeconds: 901 })).rejects.toBeInstanceOf(
      DelayQueueError,
    );
    await expect(queue.send({ n: 1 }, { delaySeconds: 1.5 })).rejects.toThrow(
      "delaySeconds must be an integer from 0 to 900, got 1.5",
    );
    expect(queue.stats().sent).toBe(0);
  });

  it("accounts for every message: each one either succeeds or lands in the DLQ", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            delay: fc.integer({ min: 0, max: 900 }),
            failures: fc.integer({ min: 0, max: 5 }),
          }),
          { maxLength: 25 },
        ),
        async (plan) => {
          // Prepare: message n fails its first plan[n].failures receives
          const attempts = new Map<number, number>();
          const { scheduler, queue } = setup(async (event) => {
            const failed = event.Records.filter((r) => {
              const n = (JSON.parse(r.body) as Msg).n;
              const a = (attempts.get(n) ?? 0) + 1;
              attempts.set(n, a);
              return a <= (plan[n]?.failures ?? 0);
            });
            return { batchItemFailures: failed.map((r) => ({ itemIdentifier: r.messageId })) };
          }, 3);
          // Act
          for (const [n, p] of plan.entries()) await queue.send({ n }, { delaySeconds: p.delay });
          await scheduler.advance(3_600_000);
          // Assess
          const stats = queue.stats();
          const expectedDead = plan.filter((p) => p.failures >= 3).length;
          expect(stats.deadLettered).toBe(expectedDead);
          expect(stats.succeeded + stats.deadLettered).toBe(plan.length);
          expect(stats.waiting + stats.inFlight).toBe(0);
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe("ManualScheduler", () => {
  it("runs due tasks in time order, moving the clock to each task's instant", async () => {
    // Prepare
    const clock = new ManualClock(T0);
    const scheduler = new ManualScheduler(clock);
    const ran: Array<[string, number]> = [];
    scheduler.at(T0 + 3_000, () => ran.push(["c", clock.now()]));
    scheduler.at(T0 + 1_000, () => {
      ran.push(["a", clock.now()]);
      // A task may schedule another inside the same advance.
      scheduler.at(T0 + 2_000, () => ran.push(["b", clock.now()]));
    });
    const cancel = scheduler.at(T0 + 2_500, () => ran.push(["cancelled", clock.now()]));
    cancel();
    // Act
    await scheduler.advanceTo(T0 + 10_000);
    // Assess
    expect(ran).toEqual([
      ["a", T0 + 1_000],
      ["b", T0 + 2_000],
      ["c", T0 + 3_000],
    ]);
    expect(clock.now()).toBe(T0 + 10_000);
    expect(scheduler.pending()).toBe(0);
  });
});
