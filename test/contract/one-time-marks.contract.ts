import { describe, expect, it } from "vitest";
import type { OneTimeMarks } from "#lib/core/ports";

// The rule every OneTimeMarks adapter keeps (lib/core/ports.ts): the first consume of an id
// answers true; any later one answers false while that mark lives (expiresAt > now); a mark
// expired at `now` counts as absent, so the id may be taken again. `taken` answers true exactly
// while a mark lives. A grant's `take` answers its payload the first time while now < expiresAt;
// otherwise "unknown" (never granted), "expired" (now >= expiresAt, taken or not), "taken".

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

    it("hands a grant's payload over once, until the millisecond before it expires", async () => {
      // Prepare
      const marks = make();
      const early = freshId("grant-early");
      const late = freshId("grant-late");
      const expiresAt = T0 + TEN_MINUTES;
      await marks.grant(early, '["T1","U1",7]', expiresAt);
      await marks.grant(late, "the other payload", expiresAt);
      // Act
      const results = [
        await marks.take(early, T0),
        await marks.take(early, T0 + 1),
        await marks.take(late, expiresAt - 1),
        await marks.take(late, expiresAt - 1),
      ];
      // Assess
      expect(results).toEqual([
        { ok: true, payload: '["T1","U1",7]' },
        { ok: false, reason: "taken" },
        { ok: true, payload: "the other payload" },
        { ok: false, reason: "taken" },
      ]);
    });

    it("refuses a grant from its expiry on, taken or not, and an id never granted", async () => {
      // Prepare
      const marks = make();
      const unused = freshId("grant-unused");
      const used = freshId("grant-used");
      await marks.grant(unused, "p", T0 + 1000);
      await marks.grant(used, "p", T0 + 1000);
      await marks.take(used, T0);
      // Act
      const results = [
        await marks.take(unused, T0 + 1000),
        await marks.take(unused, T0 + 1000 + TEN_MINUTES),
        await marks.take(used, T0 + 1000),
        await marks.take(freshId("grant-never"), T0),
      ];
      // Assess
      expect(results).toEqual([
        { ok: false, reason: "expired" },
        { ok: false, reason: "expired" },
        { ok: false, reason: "expired" },
        { ok: false, reason: "unknown" },
      ]);
    });

    it("keeps grants apart from each other and from marks of the same id", async () => {
      // Prepare
      const marks = make();
      const a = freshId("grant-a");
      const b = freshId("grant-b");
      await marks.grant(a, "a", T0 + TEN_MINUTES);
      await marks.consume(b, T0 + TEN_MINUTES, T0);
      // Act
      const results = [await marks.take(b, T0), await marks.take(a, T0)];
      // Assess
      expect(results).toEqual([
        { ok: false, reason: "unknown" },
        { ok: true, payload: "a" },
      ]);
    });

    it("refuses a second grant of an id, and keeps the first", async () => {
      // Prepare
      const marks = make();
      const token = freshId("grant-twice");
      const id = `settings-link#${token}`;
      await marks.grant(id, "first", T0 + TEN_MINUTES);
      // Act
      const second = marks.grant(id, "second", T0 + TEN_MINUTES);
      // Assess
      await expect(second).rejects.toMatchObject({ code: "conflict" });
      // The id past its kind is a live link's bearer token: errors, and so logs, never carry it.
      const message = await second.catch((error: Error) => error.message);
      expect(message).toContain("settings-link#");
      expect(message).not.toContain(token);
      expect(await marks.take(id, T0)).toEqual({ ok: true, payload: "first" });
    });

    it("lets exactly one of many concurrent takes of one grant have its payload", async () => {
      // Prepare
      const marks = make();
      const id = freshId("grant-race");
      await marks.grant(id, "once", T0 + TEN_MINUTES);
      // Act
      const results = await Promise.all(Array.from({ length: 12 }, () => marks.take(id, T0)));
      // Assess
      expect(results.filter((r) => r.ok)).toEqual([{ ok: true, payload: "once" }]);
      expect(results.filter((r) => !r.ok)).toHaveLength(11);
      expect(new Set(results.map((r) => (r.ok ? "ok" : r.reason)))).toEqual(
        new Set(["ok", "taken"]),
      );
    });
  });
}
