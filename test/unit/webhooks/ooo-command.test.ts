import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OooCommandError, parseOooCommand, zonedToEpoch } from "../../../lib/webhooks";

const now = Date.UTC(2026, 2, 20, 10, 0);
const berlin = { now, zone: "Europe/Berlin" };

describe("parseOooCommand", () => {
  it("reads a date range through the last day, in the user's zone", () => {
    // Act
    const cmd = parseOooCommand("2026-03-28 to 2026-03-30 Skiing in the Alps", berlin);
    // Assess: the range crosses the spring-forward night (UTC+1 → UTC+2)
    expect(cmd).toEqual({
      kind: "schedule",
      input: {
        start: Date.UTC(2026, 2, 27, 23, 0),
        end: Date.UTC(2026, 2, 30, 22, 0),
        text: "Skiing in the Alps",
      },
    });
  });

  it("starts now for 'until', and reads times of day", () => {
    expect(parseOooCommand("until 2026-03-21", berlin)).toEqual({
      kind: "schedule",
      input: { start: now, end: Date.UTC(2026, 2, 21, 23, 0) },
    });
    expect(parseOooCommand("2026-03-21T09:30 to 2026-03-21T12:00", berlin)).toMatchObject({
      input: { start: Date.UTC(2026, 2, 21, 8, 30), end: Date.UTC(2026, 2, 21, 11, 0) },
    });
  });

  it("understands list and cancel", () => {
    expect(parseOooCommand("list", berlin)).toEqual({ kind: "list" });
    expect(parseOooCommand(" cancel  ooo-42 ", berlin)).toEqual({ kind: "cancel", id: "ooo-42" });
  });

  it("explains what is wrong instead of guessing", () => {
    const messageOf = (text: string) => {
      try {
        parseOooCommand(text, berlin);
        return "parsed";
      } catch (error: unknown) {
        return error instanceof OooCommandError ? error.message : "other";
      }
    };
    expect(messageOf("")).toMatch(/^usage/);
    expect(messageOf("next week")).toMatch(/not a date/);
    expect(messageOf("2026-02-29")).toMatch(/not a calendar date/);
    expect(messageOf("2026-03-22 to 2026-03-21")).toMatch(/end must be after the start/);
    expect(messageOf("2026-01-01")).toMatch(/already over/);
    expect(messageOf("cancel")).toMatch(/usage: \/ooo cancel/);
    expect(messageOf(`2026-04-01 ${"x".repeat(101)}`)).toMatch(/longer than 100/);
  });
});

const fmt = (zone: string) =>
  new Intl.DateTimeFormat("sv-SE", {
    timeZone: zone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
const show = (epoch: number, zone: string) => fmt(zone).format(new Date(epoch));
/** The zone's UTC offset at `epoch`, from its own wall clock. */
const offsetMs = (epoch: number, zone: string) => {
  const wall = show(epoch, zone);
  const asUtc = Date.parse(`${wall.replace(" ", "T")}:00Z`);
  return asUtc - Math.floor(epoch / 60_000) * 60_000;
};

describe("zonedToEpoch", () => {
  it("agrees with the zone's own formatting for any wall time outside DST gaps (property)", () => {
    const zones = [
      "Europe/Berlin",
      "America/New_York",
      "Asia/Kolkata",
      "Australia/Lord_Howe",
      "UTC",
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.integer({ min: 2020, max: 2030 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 28 }),
        fc.integer({ min: 0, max: 23 }),
        fc.constantFrom(0, 15, 30, 45),
        (zone, y, m, d, hh, mm) => {
          const epoch = zonedToEpoch({ y, m, d, hh, mm }, zone);
          const pad = (n: number) => String(n).padStart(2, "0");
          const wanted = `${y}-${pad(m)}-${pad(d)} ${pad(hh)}:${pad(mm)}`;
          if (show(epoch, zone) === wanted) return;
          // Only a wall time inside a spring-forward gap may fail to round-trip.
          expect(offsetMs(epoch - 3_600_000 * 3, zone)).not.toBe(
            offsetMs(epoch + 3_600_000 * 3, zone),
          );
        },
      ),
    );
  });
});
