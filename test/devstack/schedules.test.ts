import { describe, expect, it } from "vitest";
import { ManualScheduler } from "#devstack/scheduler";
import { every } from "#devstack/schedules";
import { ManualClock } from "#lib/core/clock";

/**
 * A schedule rule (devstack/schedules.ts) fires at `firstAt` and every `ms` after, as an
 * EventBridge rate rule; disabled (EventBridge's DisableRule) it fires nothing and holds no
 * timer, so a manual clock crosses days without a run per period; enabled again it fires from
 * its next instant on, never twice at one instant. Expected instants are counted by hand.
 */
const T0 = Date.parse("2026-03-02T08:00:00.000Z");
const MIN = 60_000;

function ruleUnderTest() {
  const clock = new ManualClock(T0);
  const scheduler = new ManualScheduler(clock);
  const ran: number[] = [];
  const rule = every(scheduler, { ms: MIN, firstAt: T0 + MIN, rule: "test-tick" }, async (e) => {
    ran.push(Date.parse(e.time));
  });
  return { scheduler, ran, rule };
}

describe("a schedule rule", () => {
  it("fires at each period's instant", async () => {
    const { scheduler, ran } = ruleUnderTest();
    await scheduler.advanceTo(T0 + 3 * MIN + 30_000);
    expect(ran).toEqual([T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN]);
  });

  it("fires nothing while disabled and holds no timer, then resumes at its next instant", async () => {
    const { scheduler, ran, rule } = ruleUnderTest();
    await scheduler.advanceTo(T0 + MIN);
    rule.disable();
    expect(rule.enabled).toBe(false);
    expect(scheduler.pending()).toBe(0);
    await scheduler.advanceTo(T0 + 3 * 86_400_000 + 20_000);
    expect(ran).toEqual([T0 + MIN]);
    rule.enable();
    expect(rule.enabled).toBe(true);
    await scheduler.advanceTo(T0 + 3 * 86_400_000 + 2 * MIN);
    expect(ran).toEqual([T0 + MIN, T0 + 3 * 86_400_000 + MIN, T0 + 3 * 86_400_000 + 2 * MIN]);
  });

  it("does not fire twice at an instant it already fired, when disabled and enabled there", async () => {
    const { scheduler, ran, rule } = ruleUnderTest();
    await scheduler.advanceTo(T0 + 2 * MIN);
    rule.disable();
    rule.enable();
    rule.enable();
    await scheduler.advanceTo(T0 + 3 * MIN);
    expect(ran).toEqual([T0 + MIN, T0 + 2 * MIN, T0 + 3 * MIN]);
  });
});
