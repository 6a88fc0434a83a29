import { setImmediate as nextTurn } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import type { Gateway } from "#devstack/http-gateway";
import { DelayQueue } from "#devstack/queue";
import { ManualScheduler } from "#devstack/scheduler";
import { ManualClock } from "#lib/core/clock";
import { stackSettle } from "#lib/local/stack-settle";

/**
 * The local stack's wait for quiet after a scheduled task (lib/local/stack-settle.ts): a task
 * that set nothing off (no call out of the handlers, no queue message) and left nothing in
 * progress is not waited for, so an idle minute tick costs its invocation only; a task that
 * sent a message or called out, or anything still in progress, is waited for as before.
 */
const T0 = Date.UTC(2026, 2, 2, 9);

function setup() {
  const clock = new ManualClock(T0);
  const scheduler = new ManualScheduler(clock);
  let requests = 0;
  const gateway = { inFlight: () => requests } as unknown as Gateway;
  const queue = new DelayQueue<{ n: number }>({
    name: "sync",
    scheduler,
    consume: async () => {},
    maxReceives: 3,
  });
  const waiting = stackSettle({
    clock,
    scheduler,
    gateway,
    emulator: undefined,
    queues: [queue],
    sweepExpiries: false,
  });
  const setRequests = (n: number) => {
    requests = n;
  };
  return { waiting, queue, setRequests };
}

/** Whether `settle` resolved before the event loop's next turn: no timer was waited on. */
async function resolvesAtOnce(settle: Promise<void>): Promise<boolean> {
  let done = false;
  void settle.then(() => {
    done = true;
  });
  await nextTurn();
  const atOnce = done;
  await settle;
  return atOnce;
}

describe("the local stack's wait after a scheduled task", () => {
  it("is skipped when the task set nothing off and nothing is in progress", async () => {
    const { waiting } = setup();
    await waiting.settle("idle");
    expect(await resolvesAtOnce(waiting.settle("task"))).toBe(true);
    expect(await resolvesAtOnce(waiting.settle("task"))).toBe(true);
  });

  it("is not skipped before the clock moves, whatever was set off", async () => {
    const { waiting } = setup();
    await waiting.settle("idle");
    expect(await resolvesAtOnce(waiting.settle("idle"))).toBe(false);
  });

  it("waits after a task that queued a message, once", async () => {
    const { waiting, queue } = setup();
    await waiting.settle("idle");
    await queue.send({ n: 1 }, { delaySeconds: 5 });
    expect(await resolvesAtOnce(waiting.settle("task"))).toBe(false);
    expect(await resolvesAtOnce(waiting.settle("task"))).toBe(true);
  });

  it("waits after a task that called out: what the call set off may still be on its way", async () => {
    const { waiting } = setup();
    await waiting.settle("idle");
    const fetchOut = waiting.countedFetch(async () => new Response("ok"));
    await fetchOut("http://127.0.0.1:1/provider");
    // Nothing in progress yet (a push the call caused has not reached the gateway): still waited.
    expect(await resolvesAtOnce(waiting.settle("task"))).toBe(false);
  });

  it("waits while a request is in progress, even when nothing was set off", async () => {
    const { waiting, setRequests } = setup();
    await waiting.settle("idle");
    setRequests(1);
    const settled = waiting.settle("task");
    await new Promise((resolve) => setTimeout(resolve, 20));
    setRequests(0);
    expect(await resolvesAtOnce(settled)).toBe(false);
  });
});
