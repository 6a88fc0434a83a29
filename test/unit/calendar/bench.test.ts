import { describe, expect, it } from "vitest";
import { runCalendarBench } from "#bench/calendar";

describe("calendar benchmark (quick)", () => {
  it("runs the three engines on one generated feed and finds identical occurrence sets", async () => {
    // Act
    const { rows, table } = await runCalendarBench({ quick: true });
    // Assess
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.identical_to_ours === true)).toBe(true);
    expect(rows.every((r) => typeof r.median_ms === "number" && r.median_ms > 0)).toBe(true);
    expect(Number(rows[0]?.occurrences)).toBeGreaterThan(0);
    expect(table).toContain("all three identical: yes");
  }, 60_000);
});
