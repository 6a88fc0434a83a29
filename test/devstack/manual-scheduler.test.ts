import { describe, expect, it } from "vitest";
import { ManualScheduler, type SettleMoment } from "#devstack/scheduler";
import { ManualClock } from "#lib/core/clock";

/**
 * The manual scheduler waits for quiet before it moves the clock ("idle") and after each task it
 * ran ("task"), so that the stack may skip the second wait after a task that set nothing off.
 */
describe("ManualScheduler's waits for quiet", () => {
  it("says which wait it is: before moving the clock, or after a task", async () => {
    const clock = new ManualClock(0);
    const waits: Array<[SettleMoment, number]> = [];
    const scheduler = new ManualScheduler(clock, undefined, async (moment) => {
      waits.push([moment, clock.now()]);
    });
    const ran: number[] = [];
    scheduler.at(1000, () => ran.push(clock.now()));
    scheduler.at(2000, () => ran.push(clock.now()));
    await scheduler.advanceTo(5000);
    expect(ran).toEqual([1000, 2000]);
    expect(waits).toEqual([
      ["idle", 0],
      ["task", 1000],
      ["task", 2000],
    ]);
    await scheduler.idle();
    expect(waits.at(-1)).toEqual(["idle", 5000]);
  });
});
