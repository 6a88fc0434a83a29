import { describe, expect, it } from "vitest";
import { RENEWAL_SHAPE } from "#bench/soak/renewal";
import { runGraphRenewalSoak } from "#bench/soak/renewal-graph";

/**
 * Half a simulated day of the Graph renewal soak with 2-hour subscriptions, so that its harness
 * and checks are held by the tests; the longer run is in `npm run soak`.
 */
describe("the Graph renewal soak, shortened", () => {
  it("loses no change notification and finds no lapsed subscription with faults on", async () => {
    const report = await runGraphRenewalSoak({
      ...RENEWAL_SHAPE,
      days: 0.5,
      channelTtlMs: 2 * 3_600_000,
      faultRate: 0.3,
    });
    // 12 hours of 2-hour subscriptions renewed by PATCH at 80%: at least 5 renewals of one.
    expect(report.created).toBe(1);
    expect(report.renewed).toBeGreaterThanOrEqual(5);
    // Each one by an upkeep the tick found due (the app's own log of its upkeeps).
    expect(report.upkeeps.renewed).toBe(report.renewed);
    expect(report.edits).toBeGreaterThan(2);
    // The faults were on: a run that injects none would pass these checks without proving them.
    expect(Object.values(report.faults).reduce((sum, n) => sum + n, 0)).toBeGreaterThan(0);
    expect(report.pushesLost).toEqual([]);
    expect(report.lapsed).toEqual([]);
    // Poll cost: a 15-minute poll alone reads 48 times in 12 hours.
    expect(report.reads.fifteenMinutePoll).toBe(48);
    expect(report.reads.made).toBeGreaterThan(0);
  }, 180_000);
});
