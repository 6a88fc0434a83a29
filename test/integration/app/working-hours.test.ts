import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { offHoursBlocks } from "#lib/core/working-hours";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";
import { harness, T0 } from "./harness";

// Working hours through the app, DynamoDB included: outside them the person's status shows, one
// set per stretch outside the hours, each woken at its start through the due index (no polling)
// and expiring when the next working day starts. T0 is Monday 3 March 2025, 10:00 in Berlin.

const H = 3_600_000;
const DAY = 24 * H;
/** A wall-clock time in Berlin (UTC+1 until the change on 30 March 2025), `d` days after T0. */
const berlin = (d: number, hh: number, mm = 0) => Date.UTC(2025, 2, 3 + d, hh - 1, mm);
const offHours = { text: "Off for the day", emoji: ":crescent_moon:" };
const rules = {
  workingHours: { days: ["mon", "tue", "wed", "thu", "fri"], start: "09:00", end: "17:30" },
};

describe("working hours", () => {
  let dynamo: LocalDynamo;
  beforeAll(async () => {
    dynamo = await startDynalite();
  });
  afterAll(async () => dynamo?.close());

  it("show the off-hours status once per stretch, Friday evening to Monday morning in one set", async () => {
    // Prepare: a person with working hours and no calendar, inside their hours.
    const h = harness(dynamo);
    const key = await h.addUser("UWH1", { sources: [], rules });
    const due = async () => (await h.store.loadUser(key)).status?.nextTransitionAt;
    // Assess: nothing shows now; the end of today's hours is the next wake-up.
    expect(h.gateway.calls).toHaveLength(0);
    expect(await due()).toBe(berlin(0, 17, 30));

    // Act: every evening of the week, the reconcile runs at the instant it was woken for.
    for (let day = 0; day < 5; day++) {
      h.clock.set((await due()) ?? 0);
      await h.pilot.reconcileUser(key);
      // A reconcile later in the same stretch changes nothing.
      h.clock.advance(3 * H);
      await h.pilot.reconcileUser(key);
    }
    // Friday's stretch: the weekend, reconciled again on Saturday and Sunday.
    for (const later of [DAY, 2 * DAY]) {
      h.clock.set(berlin(4, 18) + later);
      await h.pilot.reconcileUser(key);
    }

    // Assess: five sets, each until the next working day's start; Friday's until Monday.
    expect(h.gateway.calls.map((c) => c.status)).toEqual(
      [1, 2, 3, 4, 7].map((next) => ({ ...offHours, expiration: berlin(next, 9) / 1000 })),
    );
    expect(await due()).toBe(berlin(7, 17, 30));
  });

  it("let out-of-office show over them, and change nothing without working hours", async () => {
    const h = harness(dynamo);
    const key = await h.addUser("UWH2", { sources: [], rules });
    await h.pilot.scheduleOutOfOffice(key, { start: berlin(5, 10), end: berlin(5, 12) });
    h.clock.set(berlin(5, 11));
    expect((await h.pilot.getStatusView(key))?.desired).toMatchObject({ kind: "ooo" });
    h.clock.set(berlin(5, 13));
    expect((await h.pilot.getStatusView(key))?.desired).toMatchObject({
      kind: "offHours",
      ...offHours,
    });

    const plain = await h.addUser("UWH3", { sources: [] });
    expect((await h.pilot.getStatusView(plain))?.desired).toBeUndefined();
    expect((await h.store.loadUser(plain)).status?.nextTransitionAt).toBeUndefined();
  });
});

describe("offHoursBlocks", () => {
  const weekdays = { ...offHours, days: ["mon", "tue", "wed", "thu", "fri"] as const, dnd: false };
  const at = (
    from: number,
    to: number,
    wh = { ...weekdays, days: [...weekdays.days], start: "09:00", end: "17:30" },
    tz = "Europe/Berlin",
  ) =>
    offHoursBlocks(wh, tz, from, to).map((b) => [
      new Date(b.start).toISOString(),
      new Date(b.end).toISOString(),
    ]);

  it("makes whole stretches around the window, in the person's zone", () => {
    // Saturday noon: the stretch began on Friday and ends on Monday.
    expect(at(berlin(5, 12), berlin(5, 13))).toEqual([
      ["2025-03-07T16:30:00.000Z", "2025-03-10T08:00:00.000Z"],
    ]);
    expect(at(berlin(5, 12), berlin(5, 13), undefined, "America/New_York")).toEqual([
      ["2025-03-07T22:30:00.000Z", "2025-03-10T13:00:00.000Z"],
    ]);
  });

  it("follows the zone's clock change: 17:30 is 16:30 UTC before it and 15:30 after", () => {
    // Europe/Berlin moves to summer time on Sunday 30 March 2025.
    const blocks = at(Date.UTC(2025, 2, 28, 12), Date.UTC(2025, 2, 31, 12));
    expect(blocks).toEqual([["2025-03-28T16:30:00.000Z", "2025-03-31T07:00:00.000Z"]]);
  });

  it("reads an end before the start as a night shift", () => {
    const night = { ...weekdays, days: ["mon" as const], start: "22:00", end: "06:00" };
    expect(at(berlin(0, 12), berlin(0, 13), night)).toEqual([
      ["2025-02-25T05:00:00.000Z", "2025-03-03T21:00:00.000Z"],
    ]);
  });

  it("makes nothing without working hours", () => {
    expect(offHoursBlocks(undefined, "UTC", T0, T0 + 8 * DAY)).toEqual([]);
  });
});
