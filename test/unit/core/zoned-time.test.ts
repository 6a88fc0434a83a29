import { describe, expect, it } from "vitest";
import { zonedToEpoch, zoneOffsetMs } from "#lib/core/zoned-time";

describe("wall-clock time in a zone", () => {
  it("reads the offset in force at an instant", () => {
    // Berlin: CET (+1 h) until 2026-03-29 01:00Z, CEST (+2 h) after
    expect(zoneOffsetMs(Date.UTC(2026, 2, 29, 0, 59), "Europe/Berlin")).toBe(3_600_000);
    expect(zoneOffsetMs(Date.UTC(2026, 2, 29, 1, 0), "Europe/Berlin")).toBe(7_200_000);
  });

  it("finds the instant of a local time just before a change, whose guess falls after it", () => {
    // 01:30 in Berlin on 2026-03-29 is still CET (+1 h): 00:30Z. Read as UTC, 01:30Z is already
    // CEST, so a single pass would answer 23:30Z the day before.
    expect(zonedToEpoch({ y: 2026, m: 3, d: 29, hh: 1, mm: 30 }, "Europe/Berlin")).toBe(
      Date.UTC(2026, 2, 29, 0, 30),
    );
  });

  it("counts an unknown zone as UTC", () => {
    expect(zonedToEpoch({ y: 2026, m: 11, d: 24, hh: 0, mm: 0 }, "Not/AZone")).toBe(
      Date.UTC(2026, 10, 24),
    );
  });
});
