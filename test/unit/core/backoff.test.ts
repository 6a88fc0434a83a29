import { describe, expect, it } from "vitest";
import { backoffDelayMs } from "#lib/core/backoff";

const POLICY = { baseS: 5, maxS: 900 };

describe("backoffDelayMs", () => {
  it.each([
    [1, 2_500, 5_000],
    [2, 5_000, 10_000],
    [4, 20_000, 40_000],
    // 5 s × 2^19 is far past the cap: the cap bounds it.
    [20, 450_000, 900_000],
  ])("waits half to all of base × 2^(attempt-1), capped, on attempt %i", (attempt, min, max) => {
    // Act: many users retrying the same attempt
    const delays = Array.from({ length: 50 }, (_, i) =>
      backoffDelayMs(POLICY, attempt, `T1/U${i}/${attempt}`),
    );
    // Assess: all inside the window, and spread rather than all alike
    for (const d of delays) {
      expect(d).toBeGreaterThanOrEqual(min);
      expect(d).toBeLessThan(max);
    }
    expect(new Set(delays).size).toBeGreaterThan(10);
  });

  it("waits exactly what the service's Retry-After says", () => {
    expect(backoffDelayMs(POLICY, 7, "T1/U1/7", 30)).toBe(30_000);
  });

  it("waits the same for the same user and attempt, so a redelivered failure reschedules alike", () => {
    expect(backoffDelayMs(POLICY, 3, "T1/U1/3")).toBe(backoffDelayMs(POLICY, 3, "T1/U1/3"));
  });
});
