import { describe, expect, it } from "vitest";
import { SoakScheduler } from "#bench/soak/scheduler";
import { ManualClock } from "#lib/core/clock";

const T0 = Date.UTC(2026, 2, 9, 9, 0);

const make = (opts: { busy?: () => number; stallAfterMs?: number } = {}) => {
  const clock = new ManualClock(T0);
  const errors: unknown[] = [];
  const stalls: number[] = [];
  const scheduler = new SoakScheduler({
    clock,
    onError: (e) => errors.push(e),
    busy: opts.busy ?? (() => 0),
    onStall: (ms) => stalls.push(ms),
    ...(opts.stallAfterMs !== undefined ? { stallAfterMs: opts.stallAfterMs } : {}),
  });
  return { clock, scheduler, errors, stalls };
};

describe("SoakScheduler", () => {
  it("runs every task due at one instant together, as concurrent invocations would", async () => {
    // Prepare: the first task can only finish once the second has started.
    const { scheduler, errors } = make();
    let release: () => void = () => {};
    const secondStarted = new Promise<void>((resolve) => {
      release = resolve;
    });
    const done: string[] = [];
    scheduler.at(T0 + 1000, async () => {
      await secondStarted;
      done.push("first");
    });
    scheduler.at(T0 + 1000, () => {
      release();
      done.push("second");
    });
    // Act
    await scheduler.advanceTo(T0 + 5000);
    // Assess
    expect(done).toEqual(["second", "first"]);
    expect(errors).toEqual([]);
    expect(scheduler.stats()).toMatchObject({ tasks: 2, instants: 1 });
  });

  it("runs tasks in time order and sets the clock to each task's instant", async () => {
    // Prepare
    const { clock, scheduler } = make();
    const seen: number[] = [];
    for (const offset of [3000, 1000, 2000])
      scheduler.at(T0 + offset, () => seen.push(clock.now()));
    // Act
    await scheduler.advanceTo(T0 + 2500);
    // Assess
    expect(seen).toEqual([T0 + 1000, T0 + 2000]);
    expect(clock.now()).toBe(T0 + 2500);
    expect(scheduler.pending()).toBe(1);
  });

  it("does not move the clock while work the tasks set off is still busy", async () => {
    // Prepare: the first task starts work it does not await, finishing 30 ms later in real time.
    let busy = 0;
    const { clock, scheduler } = make({ busy: () => busy });
    const finishedAt: number[] = [];
    scheduler.at(T0 + 1000, () => {
      busy++;
      setTimeout(() => {
        finishedAt.push(clock.now());
        busy--;
      }, 30);
    });
    let busyWhenNextRan = -1;
    scheduler.at(T0 + 2000, () => {
      busyWhenNextRan = busy;
    });
    // Act
    await scheduler.advanceTo(T0 + 3000);
    // Assess
    expect(finishedAt).toEqual([T0 + 1000]);
    expect(busyWhenNextRan).toBe(0);
  });

  it("runs a task another task schedules for the same instant before moving on", async () => {
    // Prepare
    const { clock, scheduler } = make();
    const seen: string[] = [];
    scheduler.at(T0 + 1000, () => {
      scheduler.at(clock.now(), () => seen.push(`follow-up at ${clock.now() - T0}`));
    });
    scheduler.at(T0 + 2000, () => seen.push(`later at ${clock.now() - T0}`));
    // Act
    await scheduler.advanceTo(T0 + 2000);
    // Assess
    expect(seen).toEqual(["follow-up at 1000", "later at 2000"]);
  });

  it("reports a failed task as an error and carries on with the next", async () => {
    // Prepare
    const { scheduler, errors } = make();
    let ran = false;
    scheduler.at(T0 + 1000, () => {
      throw new Error("boom");
    });
    scheduler.at(T0 + 2000, () => {
      ran = true;
    });
    // Act
    await scheduler.advanceTo(T0 + 2000);
    // Assess
    expect(errors.map((e) => (e instanceof Error ? e.message : e))).toEqual(["boom"]);
    expect(ran).toBe(true);
  });

  it("says it is stalled when nothing finishes for a while, then goes on once quiet", async () => {
    // Prepare: something stays busy for 200 ms of real time; the stall threshold is 50 ms.
    let busy = 1;
    const { scheduler, stalls } = make({ busy: () => busy, stallAfterMs: 50 });
    setTimeout(() => {
      busy = 0;
    }, 200);
    // Act
    await scheduler.advanceTo(T0 + 1000);
    // Assess
    expect(stalls.length).toBeGreaterThanOrEqual(1);
    expect(stalls[0]).toBeGreaterThanOrEqual(50);
  });

  it("runs nothing once closed", async () => {
    // Prepare
    const { scheduler } = make();
    let ran = false;
    scheduler.at(T0 + 1000, () => {
      ran = true;
    });
    // Act
    scheduler.close();
    await scheduler.advanceTo(T0 + 2000);
    // Assess
    expect(ran).toBe(false);
    expect(scheduler.pending()).toBe(0);
  });
});
