import { describe, expect, it } from "vitest";
import { runFeedBoundsBench, worstFeedUnderTheCaps } from "#bench/feed-bounds";
import { MAX_FEED_BYTES } from "#lib/calendar/feed-body";
import { EXPANSION_SLICE_MS, MAX_OCCURRENCES_PER_FEED } from "#lib/calendar/work-budget";

describe("the feed bounds bench (quick)", () => {
  it("reads the real-shaped feed in full and stops the explosive ones at a cap", async () => {
    // Act
    const { rows, table } = await runFeedBoundsBench({ quick: true });
    // Assert: the quick run's budget for the explosive feeds is 1 s of CPU.
    const [real, issue29, worst] = rows;
    expect(rows).toHaveLength(3);
    expect(real).toMatchObject({ cap_reached: "none" });
    expect(issue29).toMatchObject({
      cap_reached: "feed_occurrences",
      occurrences: MAX_OCCURRENCES_PER_FEED,
    });
    expect(worst).toMatchObject({ cap_reached: "time_budget" });
    // Read at the end of each slice; the process's CPU time counts every thread (the collector's
    // among them), so a slice may read a few ms over: 1 % of the budget is allowed for it.
    expect(Number(worst?.cpu_ms)).toBeLessThanOrEqual(1_010 + 2 * EXPANSION_SLICE_MS);
    expect(rows.every((r) => Number(r.peak_rss_mb) > 0)).toBe(true);
    expect(table).toContain("worst under the caps");
  }, 120_000);

  it("builds its worst feed as large as the byte cap allows, and no larger", () => {
    const text = worstFeedUnderTheCaps(Date.UTC(2026, 2, 2), MAX_FEED_BYTES);
    expect(text.length).toBeLessThanOrEqual(MAX_FEED_BYTES);
    expect(text.length).toBeGreaterThan(0.9 * MAX_FEED_BYTES);
  });
});
