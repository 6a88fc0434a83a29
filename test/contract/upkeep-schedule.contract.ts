import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { UpkeepSchedule } from "#lib/core/upkeep-schedule";

/**
 * What every UpkeepSchedule promises (lib/core/upkeep-schedule.ts), run against each adapter:
 * an entry is due once its instant is reached, a claim holds the upkeep against other claims
 * until its lease ends (without an entry it answers one due now and writes nothing, so a late
 * upkeep of a deleted user leaves nothing behind), setting the next instant creates the entry or
 * ends the claim, parking takes an existing entry out of the schedule until the next claim (and
 * creates none), and removing forgets the entry.
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

    it("a claim without an entry answers one due now, and neither writes nor holds one", async () => {
      const dueNow = { key: BOB, sourceId: "graph-1", dueAt: T0, failures: 0 };
      expect(await schedule.claim(BOB, "graph-1", T0, T0 + 5 * MIN)).toEqual(dueNow);
      // Nothing was written: nothing is due, and nothing holds the upkeep.
      expect(await schedule.dueBy(T0 + 60 * MIN)).toEqual([]);
      expect(await schedule.claim(BOB, "graph-1", T0 + MIN, T0 + 6 * MIN)).toEqual({
        ...dueNow,
        dueAt: T0 + MIN,
      });
      expect(await schedule.dueBy(T0 + 60 * MIN)).toEqual([]);
    });

    it("setting the next instant creates the entry, or ends the claim on it", async () => {
      await schedule.set({ key: BOB, sourceId: "graph-1", dueAt: T0, failures: 0 });
      expect(await schedule.dueBy(T0)).toEqual([{ key: BOB, sourceId: "graph-1", dueAt: T0 }]);
      await schedule.claim(BOB, "graph-1", T0, T0 + 5 * MIN);
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

    it("parking without an entry leaves none: it is neither due nor held", async () => {
      await schedule.park(ALICE, "google-1");
      expect(await schedule.dueBy(T0 + 60 * MIN)).toEqual([]);
      const dueNow = { key: ALICE, sourceId: "google-1", dueAt: T0, failures: 0 };
      expect(await schedule.claim(ALICE, "google-1", T0, T0 + 5 * MIN)).toEqual(dueNow);
      // A parked entry would now be held by that claim; there is none to hold.
      expect(await schedule.claim(ALICE, "google-1", T0, T0 + 5 * MIN)).toEqual(dueNow);
    });

    it("a removed entry is gone; removing none is fine", async () => {
      await schedule.set({ key: ALICE, sourceId: "google-1", dueAt: T0, failures: 0 });
      await schedule.remove(ALICE, "google-1");
      await schedule.remove(ALICE, "never-there");
      expect(await schedule.dueBy(T0 + MIN)).toEqual([]);
    });
  });
}
