import { describe, expect, it } from "vitest";
import type { WorkTimer } from "#lib/core/clock";

/**
 * What every WorkTimer promises (lib/core/clock.ts), run against the system's and the tests':
 * its readings never go back, and giving way lets what already waits on the event loop run
 * first (a timer, an immediate), which a resolved promise would not.
 */
export function describeWorkTimerContract(name: string, make: () => WorkTimer): void {
  describe(`WorkTimer contract: ${name}`, () => {
    it("never reads less than before", () => {
      // Arrange
      const timer = make();
      // Act
      const readings = Array.from({ length: 1_000 }, () => timer.elapsedMs());
      // Assert
      for (let i = 1; i < readings.length; i++) {
        expect(readings[i]).toBeGreaterThanOrEqual(readings[i - 1] ?? Number.NaN);
      }
    });

    it("gives way to what waits: an immediate queued before it, and a timer that came due", async () => {
      // Arrange: work in 2 ms slices, a timer due after 5 ms of it.
      const timer = make();
      const ran: string[] = [];
      setImmediate(() => ran.push("immediate"));
      let slice = 0;
      let timerFiredAt: number | undefined;
      setTimeout(() => {
        timerFiredAt = slice;
      }, 5);
      // Act
      for (; slice < 50; slice++) {
        const start = performance.now();
        while (performance.now() - start < 2) {
          // busy: the thread is held, as by an expansion's slice
        }
        await timer.giveWay();
        if (slice === 0) ran.push("after the first give-way");
      }
      // Assert: the timer ran between slices, long before the work ended.
      expect(ran).toEqual(["immediate", "after the first give-way"]);
      expect(timerFiredAt).toBeDefined();
      expect(timerFiredAt).toBeLessThan(10);
    });
  });
}
