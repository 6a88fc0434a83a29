import { describe, expect, it } from "vitest";
import type { OneTimeMarks } from "#lib/core/ports";

// The rule every OneTimeMarks adapter keeps (lib/core/ports.ts): the first consume of an id
// answers true; any later one answers false while that mark lives (expiresAt > now); a mark
// expired at `now` counts as absent, so the id may be taken again. `taken` answers true exactly
// while a mark lives.

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const TEN_MINUTES = 10 * 60_000;

let serial = 0;
/** Ids unique across the tests of one run, since adapters may share one table. */
const freshId = (what: string) => `contract-${what}-${++serial}-${Math.random()}`;

export function oneTimeMarksContract(name: string, make: () => OneTimeMarks): void {
  describe(`OneTimeMarks contract: ${name}`, () => {
    it("takes an id once, then refuses it until the mark expires", async () => {
      // Prepare
      const marks = make();
      const id = freshId("once");
      const expiresAt = T0 + TEN_MINUTES;
      // Act
      const first = await marks.consume(id, expiresAt, T0);
      const again = await marks.consume(id, expiresAt, T0 + 1);
      const lastMs = await marks.consume(id, expiresAt, expiresAt - 1);
      // Assess
      expect([first, again, lastMs]).toEqual([true, false, false]);
    });

    it("counts a mark expired at now as absent, and takes its id again", async () => {
      // Prepare
      const marks = make();
      const id = freshId("expired");
      await marks.consume(id, T0 + 1000, T0);
      // Act
      const atExpiry = await marks.consume(id, T0 + 1000 + TEN_MINUTES, T0 + 1000);
      const afterRetake = await marks.consume(id, T0 + 1000 + TEN_MINUTES, T0 + 2000);
      // Assess
      expect(atExpiry).toBe(true);
      expect(afterRetake).toBe(false);
    });

    it("keeps ids apart", async () => {
      // Prepare
      const marks = make();
      const a = freshId("a");
      const b = freshId("b");
      // Act
      const results = [
        await marks.consume(a, T0 + TEN_MINUTES, T0),
        await marks.consume(b, T0 + TEN_MINUTES, T0),
        await marks.consume(a, T0 + TEN_MINUTES, T0),
      ];
      // Assess
      expect(results).toEqual([true, true, false]);
    });

    it("says a mark is taken from its consume until the millisecond before it expires", async () => {
      // Prepare
      const marks = make();
      const id = freshId("taken");
      const expiresAt = T0 + TEN_MINUTES;
      // Act
      const before = await marks.taken(id, T0);
      await marks.consume(id, expiresAt, T0);
      const after = [
        await marks.taken(id, T0),
        await marks.taken(id, expiresAt - 1),
        await marks.taken(id, expiresAt),
        await marks.taken(freshId("never"), T0),
      ];
      // Assess
      expect(before).toBe(false);
      expect(after).toEqual([true, true, false, false]);
    });

    it("lets exactly one of many concurrent consumes of one id win", async () => {
      // Prepare
      const marks = make();
      const id = freshId("race");
      // Act
      const results = await Promise.all(
        Array.from({ length: 12 }, () => marks.consume(id, T0 + TEN_MINUTES, T0)),
      );
      // Assess
      expect(results.filter((r) => r)).toHaveLength(1);
    });
  });
}
