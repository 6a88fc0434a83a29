import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { UpkeepSchedule } from "#lib/core/upkeep-schedule";

/**
 * What every UpkeepSchedule promises (lib/core/upkeep-schedule.ts), run against each adapter:
 * an entry is due once its instant is reached, a claim holds the upkeep against other claims
 * until its lease ends (and creates an entry due now when there is none), setting the next
 * instant ends the claim, parking takes the entry out of the schedule until the next claim, and
 * removing forgets the entry.
 */
export interface UpkeepScheduleUnderTest {
  schedule: UpkeepSchedule;
  cleanup(): Promise<void>;
}

const T0 = Date.UTC(2026, 3, 1, 9, 0, 0);
const MIN = 60_000;
const ALICE = { team: "T1", user: "UALICE" };
const BOB = { team: "T1", user: "UBOB" };

export function describeUpkeepScheduleContract(
  name: string,
  make: () => Promise<UpkeepScheduleUnderTest>,
): void {
  describe(`UpkeepSchedule contract: ${name}`, () => {
    let subject: UpkeepScheduleUnderTest;
    let schedule: UpkeepSchedule;
    beforeEach(async () => {
      subject = await make();
      schedule = subject.schedule;
    });
    afterEach(async () => {
      await subject.cleanup();
    });

    it("finds each entry once its instant is reached, with its owner and source", async () => {
      await schedule.set({ key: ALICE, sourceId: "google-1", dueAt: T0 + 10 * MIN, failures: 0 });
      await schedule.set({ key: BOB, sourceId: "graph-1", dueAt: T0 + 20 * MIN, failures: 2 });
      expect(await schedule.dueBy(T0 + 10 * MIN - 1)).toEqual([]);
      expect(await schedule.dueBy(T0 + 10 * MIN)).toEqual([
        { key: ALICE, sourceId: "google-1", dueAt: T0 + 10 * MIN },
      ]);
      const both = await schedule.dueBy(T0 + 30 * MIN);
      expect(both.map((d) => d.sourceId).sort()).toEqual(["google-1", "graph-1"]);
    });

    it("a claim answers the entry as it was and holds it until its lease ends", async () => {
      await schedule.set({ key: ALICE, sourceId: "google-1", dueAt: T0, failures: 2 });
      expect(await schedule.claim(ALICE, "google-1", T0 + MIN, T0 + 6 * MIN)).toEqual({
        key: ALICE,
        sourceId: "google-1",
        dueAt: T0,
        failures: 2,
      });
      expect(await schedule.claim(ALICE, "google-1", T0 + 5 * MIN, T0 + 10 * MIN)).toBeUndefined();
      // Another source of the same person is not held.
      expect(await schedule.claim(ALICE, "graph-1", T0 + 5 * MIN, T0 + 10 * MIN)).toEqual({
        key: ALICE,
        sourceId: "graph-1",
        dueAt: T0 + 5 * MIN,
        failures: 0,
      });
      // The lease ended: claimed again.
      expect(await schedule.claim(ALICE, "google-1", T0 + 6 * MIN, T0 + 11 * MIN)).toMatchObject({
        failures: 2,
      });
    });

    it("a claim without an entry creates one due now; setting the next instant ends the claim", async () => {
      expect(await schedule.claim(BOB, "graph-1", T0, T0 + 5 * MIN)).toEqual({
        key: BOB,
        sourceId: "graph-1",
        dueAt: T0,
        failures: 0,
      });
      expect(await schedule.dueBy(T0)).toEqual([{ key: BOB, sourceId: "graph-1", dueAt: T0 }]);
      await schedule.set({ key: BOB, sourceId: "graph-1", dueAt: T0 + 60 * MIN, failures: 1 });
      expect(await schedule.dueBy(T0 + MIN)).toEqual([]);
      expect(await schedule.claim(BOB, "graph-1", T0 + MIN, T0 + 6 * MIN)).toEqual({
        key: BOB,
        sourceId: "graph-1",
        dueAt: T0 + 60 * MIN,
        failures: 1,
      });
    });

    it("a parked entry is never due, and a claim puts it back, due at once", async () => {
      await schedule.set({ key: ALICE, sourceId: "google-1", dueAt: T0, failures: 3 });
      await schedule.park(ALICE, "google-1");
      expect(await schedule.dueBy(T0 + 60 * MIN)).toEqual([]);
      expect(await schedule.claim(ALICE, "google-1", T0 + 60 * MIN, T0 + 65 * MIN)).toEqual({
        key: ALICE,
        sourceId: "google-1",
        dueAt: T0 + 60 * MIN,
        failures: 0,
      });
      expect(await schedule.dueBy(T0 + 60 * MIN)).toEqual([
        { key: ALICE, sourceId: "google-1", dueAt: T0 + 60 * MIN },
      ]);
    });

    it("a removed entry is gone; removing none is fine", async () => {
      await schedule.set({ key: ALICE, sourceId: "google-1", dueAt: T0, failures: 0 });
      await schedule.remove(ALICE, "google-1");
      await schedule.remove(ALICE, "never-there");
      expect(await schedule.dueBy(T0 + MIN)).toEqual([]);
    });
  });
}
