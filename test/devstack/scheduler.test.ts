import { describe, expect, it } from "vitest";
import { RealTimeScheduler } from "#devstack/scheduler";
import { ManualClock } from "#lib/core/clock";

const T0 = Date.parse("2025-03-10T10:00:00.000Z");
/** A few real milliseconds: long enough for timers armed at 0 to have fired. */
const moment = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("RealTimeScheduler.skipAhead", () => {
  it("runs what falls due on the way at once, in time order, and keeps later tasks' instants", async () => {
    // Prepare: the base clock stands still, so only the skips move the scheduler's clock.
    const scheduler = new RealTimeScheduler(new ManualClock(T0));
    const ran: Array<[string, number]> = [];
    const task = (name: string) => () => ran.push([name, scheduler.clock.now()]);
    scheduler.at(T0 + 60_000, task("c"));
    scheduler.at(T0 + 1_000, task("b"));
    scheduler.at(T0 + 500, task("a"));
    const cancel = scheduler.at(T0 + 700, task("cancelled"));
    cancel();
    try {
      // Act 1
      await moment();
      const before = [...ran];
      scheduler.skipAhead(2_000);
      await moment();
      await scheduler.idle();
      // Assess 1: nothing ran on its own; the skip ran the two due, in time order.
      expect(before).toEqual([]);
      expect(ran).toEqual([
        ["a", T0 + 2_000],
        ["b", T0 + 2_000],
      ]);
      // Act 2: up to the last one's instant.
      scheduler.skipAhead(58_000);
      await moment();
      await scheduler.idle();
      // Assess 2
      expect(ran.map(([name]) => name)).toEqual(["a", "b", "c"]);
      expect(scheduler.clock.now()).toBe(T0 + 60_000);
    } finally {
      scheduler.close();
    }
  });
});
