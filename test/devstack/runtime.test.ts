import type { Context, SQSEvent } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { DelayQueue } from "#devstack/queue";
import { FrozenInvocationError, InvocationTimeoutError, LambdaRuntime } from "#devstack/runtime";
import { ManualScheduler } from "#devstack/scheduler";
import { ManualClock } from "#lib/core/clock";

const T0 = Date.UTC(2025, 2, 10, 12, 0, 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const never = () => new Promise<never>(() => {});

/** A port that records the calls that reached it. */
const recordingPort = () => {
  const reached: string[] = [];
  return {
    reached,
    port: {
      async put(what: string): Promise<string> {
        reached.push(what);
        return "ok";
      },
    },
  };
};

describe("LambdaRuntime: timeouts", () => {
  it("cuts an invocation off at its timeout and ignores what it returns later", async () => {
    // Prepare
    const runtime = new LambdaRuntime({ clock: new ManualClock(T0) });
    let finished = false;
    const slow = async () => {
      await sleep(150);
      finished = true;
      return "late result";
    };
    // Act
    const outcome = runtime.invoke({ name: "tick", timeoutMs: 30, handler: slow }, {});
    // Assess
    await expect(outcome).rejects.toBeInstanceOf(InvocationTimeoutError);
    await expect(outcome).rejects.toMatchObject({ code: "timeout", functionName: "tick" });
    expect(finished).toBe(false);
  });

  it("refuses the port calls a timed-out invocation makes afterwards", async () => {
    // Prepare
    const runtime = new LambdaRuntime({ clock: new ManualClock(T0) });
    const { port, reached } = recordingPort();
    const store = runtime.guard("store", port);
    let late: unknown;
    const slow = async () => {
      await store.put("before the timeout");
      await sleep(100);
      late = await store.put("after the timeout").catch((error: unknown) => error);
    };
    // Act
    await runtime.invoke({ name: "syncWorker", timeoutMs: 30, handler: slow }, {}).catch(() => {});
    await sleep(200);
    // Assess
    expect(reached).toEqual(["before the timeout"]);
    expect(late).toBeInstanceOf(FrozenInvocationError);
    expect(runtime.refusals()).toEqual([
      expect.objectContaining({ functionName: "syncWorker", port: "store.put" }),
    ]);
  });

  it("gives the handler the time left before its timeout", async () => {
    // Prepare
    const clock = new ManualClock(T0);
    const runtime = new LambdaRuntime({ clock });
    const left: number[] = [];
    const handler = async (_event: unknown, context: Context) => {
      left.push(context.getRemainingTimeInMillis());
      clock.advance(12_000);
      left.push(context.getRemainingTimeInMillis());
      clock.advance(30_000);
      left.push(context.getRemainingTimeInMillis());
    };
    // Act
    await runtime.invoke({ name: "transitionWorker", timeoutMs: 30_000, handler }, {});
    // Assess
    expect(left).toEqual([30_000, 18_000, 0]);
  });
});

describe("LambdaRuntime: no background work after the handler returns", () => {
  it("refuses and logs a port call made by work the handler left running", async () => {
    // Prepare
    const errors: Array<{ message: string; data?: Record<string, unknown> }> = [];
    const runtime = new LambdaRuntime({
      clock: new ManualClock(T0),
      log: {
        debug() {},
        info() {},
        warn() {},
        error: (message, data) => errors.push({ message, ...(data ? { data } : {}) }),
      },
    });
    const { port, reached } = recordingPort();
    const queue = runtime.guard("transitionQueue", port);
    const fetchCalls: string[] = [];
    const guardedFetch = runtime.guardFetch(async (input) => {
      fetchCalls.push(String(input));
      return new Response("{}");
    });
    const outcomes: unknown[] = [];
    const handler = async () => {
      await queue.put("while running");
      // Fire and forget: on Lambda this never runs once the handler has returned.
      void sleep(20).then(async () => {
        outcomes.push(await queue.put("after return").catch((error: unknown) => error));
        outcomes.push(await guardedFetch("http://service/api").catch((error: unknown) => error));
      });
      return { statusCode: 200 };
    };
    // Act
    const result = await runtime.invoke({ name: "serviceEvents", timeoutMs: 10_000, handler }, {});
    await sleep(60);
    // Assess
    expect(result).toEqual({ statusCode: 200 });
    expect(reached).toEqual(["while running"]);
    expect(fetchCalls).toEqual([]);
    expect(outcomes).toEqual([
      expect.any(FrozenInvocationError),
      expect.any(FrozenInvocationError),
    ]);
    expect(errors.map((e) => e.data?.port)).toEqual(["transitionQueue.put", "fetch"]);
  });

  it("lets calls from outside any invocation through (the stack's own setup)", async () => {
    // Prepare
    const runtime = new LambdaRuntime({ clock: new ManualClock(T0) });
    const { port, reached } = recordingPort();
    // Act
    await runtime.guard("store", port).put("setup");
    // Assess
    expect(reached).toEqual(["setup"]);
    expect(runtime.refusals()).toEqual([]);
  });
});

describe("an SQS-fed function that times out", () => {
  it("gets the whole batch again after the visibility timeout, then it goes to the DLQ", async () => {
    // Prepare: batches of 10, a 30 ms (real) timeout, a 180 s visibility timeout, 3 receives.
    const clock = new ManualClock(T0);
    const scheduler = new ManualScheduler(clock);
    const runtime = new LambdaRuntime({ clock });
    const receives: Array<{ at: number; size: number }> = [];
    const stuck = async (event: SQSEvent) => {
      receives.push({ at: clock.now() - T0, size: event.Records.length });
      await never();
    };
    const queue = new DelayQueue<{ n: number }>({
      name: "transition",
      scheduler,
      consume: (event) =>
        runtime.invoke({ name: "transitionWorker", timeoutMs: 30, handler: stuck }, event),
      batchSize: 10,
      batchSameInstant: true,
      maxReceives: 3,
      visibilityTimeoutMs: 180_000,
      backoffMs: () => 1_000,
    });
    for (let n = 0; n < 3; n++) await queue.send({ n });
    // Act
    await scheduler.advance(0);
    await scheduler.advance(179_999);
    const beforeVisible = receives.length;
    await scheduler.advance(1);
    await scheduler.advance(180_000);
    await scheduler.advance(600_000);
    // Assess
    expect(beforeVisible).toBe(1);
    expect(receives).toEqual([
      { at: 0, size: 3 },
      { at: 180_000, size: 3 },
      { at: 360_000, size: 3 },
    ]);
    expect(queue.stats()).toMatchObject({ succeeded: 0, deadLettered: 3, redelivered: 6 });
    expect(
      queue
        .deadLetters()
        .map((d) => d.message.n)
        .sort(),
    ).toEqual([0, 1, 2]);
    expect(queue.deadLetters()[0]?.reason).toMatch(/InvocationTimeoutError.*timed out/);
  });
});
