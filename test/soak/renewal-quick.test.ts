import { describe, expect, it } from "vitest";
import { RENEWAL_SHAPE, runRenewalSoak } from "#bench/soak/renewal";

/**
 * Half a simulated day of the renewal soak with 2-hour channels, so that its harness and checks
 * are held by the tests; the simulated month runs in `npm run soak`.
 */
describe("the renewal soak, shortened", () => {
  it("loses no push and finds no lapsed channel with faults on", async () => {
    const report = await runRenewalSoak({
      ...RENEWAL_SHAPE,
      days: 0.5,
      channelTtlMs: 2 * 3_600_000,
      faultRate: 0.3,
    });
    // 12 hours of 2-hour channels renewed at 80%: the first and at least 6 renewals.
    expect(report.channelsCreated).toBeGreaterThanOrEqual(7);
    // Every channel after the first came from an upkeep (renewals scheduled in the due index).
    expect(report.upkeeps.created).toBe(1);
    expect(report.upkeeps.renewed + report.upkeeps.recreated).toBe(report.channelsCreated - 1);
    expect(report.edits).toBeGreaterThan(2);
    // The faults were on: a run that injects none would pass these checks without proving them.
    expect(Object.values(report.faults).reduce((sum, n) => sum + n, 0)).toBeGreaterThan(0);
    expect(report.pushesLost).toEqual([]);
    expect(report.lapsed).toEqual([]);
    // Poll cost: a 15-minute poll alone reads 48 times in 12 hours; pushes read per change.
    expect(report.reads.fifteenMinutePoll).toBe(48);
    expect(report.reads.made).toBeGreaterThan(0);
    console.log(
      `renewal soak (12 h): ${report.reads.made} Calendar reads for ${report.edits} edits; a 15-minute poll alone: ${report.reads.fifteenMinutePoll}`,
    );
  }, 120_000);
});
