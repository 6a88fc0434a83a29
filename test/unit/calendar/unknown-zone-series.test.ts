import { describe, expect, it } from "vitest";
import { expand } from "#lib/calendar/expand";
import { icsFixture } from "./ics-fixtures";

/**
 * Series whose TZID ("Office Time") is neither defined in the feed nor known anywhere, so the
 * fallback zone (the calendar's X-WR-TIMEZONE, else the user's) applies. Every value of the
 * series must be read in that one zone, and a UNTIL in UTC compared in UTC. The expectations are
 * computed here from the US Eastern rules written out by hand, never by the module under test.
 */
const feedText = icsFixture("unknown-zone-series.ics");

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

/** Day of the month of the n-th Sunday of a month (month 1-12), by plain weekday arithmetic. */
const nthSunday = (year: number, month: number, n: number): number => {
  const weekdayOfFirst = new Date(Date.UTC(year, month - 1, 1)).getUTCDay();
  return 1 + ((7 - weekdayOfFirst) % 7) + 7 * (n - 1);
};

/**
 * A New York wall time (fields read as UTC) as an instant, per the US rules since 2007: EDT
 * (UTC-4) from 02:00 on the second Sunday of March to 02:00 on the first Sunday of November,
 * EST (UTC-5) otherwise. The series here never sits in the hours the clocks skip or repeat.
 */
function newYorkToUtc(wall: number): number {
  const year = new Date(wall).getUTCFullYear();
  const dstStart = Date.UTC(year, 2, nthSunday(year, 3, 2), 2);
  const dstEnd = Date.UTC(year, 10, nthSunday(year, 11, 1), 2);
  return wall + (wall >= dstStart && wall < dstEnd ? 4 : 5) * HOUR;
}

type UntilForm = "date" | "local" | "utc";

/** The series of the fixture, restated: Mondays 19:30-20:00 from 6 January 2025. */
function expectedStarts(until: UntilForm, withExdates: boolean, from: number, to: number) {
  const first = Date.UTC(2025, 0, 6, 19, 30);
  const walls: number[] = [];
  for (let wall = first; wall < Date.UTC(2026, 0, 1); wall += 7 * DAY) {
    const instant = newYorkToUtc(wall);
    const inRule =
      until === "date"
        ? wall < Date.UTC(2025, 10, 4) // UNTIL=20251103: the whole of that day
        : until === "local"
          ? wall <= Date.UTC(2025, 10, 3, 19, 30) // UNTIL=20251103T193000 in the series' zone
          : instant <= Date.UTC(2025, 10, 4); // UNTIL=20251104T000000Z
    if (inRule) walls.push(wall);
  }
  walls.push(Date.UTC(2025, 9, 15, 19, 30)); // RDATE;TZID=Office Time:20251015T193000
  let instants = walls.map(newYorkToUtc);
  if (withExdates) {
    const excluded = [newYorkToUtc(Date.UTC(2025, 9, 20, 19, 30)), Date.UTC(2025, 9, 13, 23, 30)];
    instants = instants.filter((t) => !excluded.includes(t));
  }
  return instants
    .filter((t) => t < to && t + 30 * 60_000 > from)
    .sort((a, b) => a - b)
    .map(iso);
}

const FALLBACKS = [
  // No X-WR-TIMEZONE: the user's zone is the fallback.
  { name: "the user's zone", text: feedText, userZone: "America/New_York" },
  // The calendar's zone is the fallback; a user in Tokyo would see every time 13 hours off.
  {
    name: "the calendar's X-WR-TIMEZONE",
    text: feedText.replace("METHOD:PUBLISH", "METHOD:PUBLISH\r\nX-WR-TIMEZONE:America/New_York"),
    userZone: "Asia/Tokyo",
  },
];

const SERIES: Array<[uid: string, until: UntilForm, withExdates: boolean]> = [
  ["until-date", "date", false],
  ["until-date-exdate", "date", true],
  ["until-local", "local", false],
  ["until-local-exdate", "local", true],
  ["until-utc", "utc", false],
  ["until-utc-exdate", "utc", true],
];

const WINDOWS = [
  // From the series' start: every instance, across both clock changes.
  { name: "the whole year", from: "2025-01-01T00:00:00Z", to: "2026-01-01T00:00:00Z" },
  // Months after the start, where the expansion skips ahead instead of walking from DTSTART.
  { name: "October and November", from: "2025-10-01T00:00:00Z", to: "2025-12-01T00:00:00Z" },
];

describe.each(FALLBACKS)("a series in an unknown zone, read in $name", (fallback) => {
  const run = (from: string, to: string) =>
    expand(fallback.text, {
      from: Date.parse(from),
      to: Date.parse(to),
      userZone: fallback.userZone,
    });

  describe.each(WINDOWS)("over $name", (window) => {
    it.each(SERIES)("places every instance of %s (UNTIL %s, EXDATEs %s)", (uid, until, ex) => {
      // Prepare
      const expected = expectedStarts(until, ex, Date.parse(window.from), Date.parse(window.to));
      // Act
      const occurrences = run(window.from, window.to).occurrences.filter((o) => o.uid === uid);
      // Assess: DTEND is read in the same zone as DTSTART, so each instance lasts 30 minutes.
      expect(occurrences.map((o) => iso(o.start))).toEqual(expected);
      expect(occurrences.every((o) => o.end - o.start === 30 * 60_000)).toBe(true);
    });
  });

  it("ends each UNTIL form where it says, written out by hand", () => {
    // Act
    const result = run("2025-10-01T00:00:00Z", "2025-12-01T00:00:00Z");
    const startsOf = (uid: string) =>
      result.occurrences.filter((o) => o.uid === uid).map((o) => iso(o.start));
    // Assess: 19:30 in New York is 23:30Z under EDT and 00:30Z the next day under EST (from
    // 2 November). A date or local UNTIL keeps 3 November; 20251104T000000Z, compared in UTC,
    // ends the series half an hour before it.
    const october = [
      "2025-10-06T23:30:00.000Z",
      "2025-10-13T23:30:00.000Z",
      "2025-10-15T23:30:00.000Z",
      "2025-10-20T23:30:00.000Z",
      "2025-10-27T23:30:00.000Z",
    ];
    expect(startsOf("until-date")).toEqual([...october, "2025-11-04T00:30:00.000Z"]);
    expect(startsOf("until-local")).toEqual([...october, "2025-11-04T00:30:00.000Z"]);
    expect(startsOf("until-utc")).toEqual(october);
    expect(startsOf("until-local-exdate")).toEqual([
      "2025-10-06T23:30:00.000Z",
      "2025-10-15T23:30:00.000Z",
      "2025-10-27T23:30:00.000Z",
      "2025-11-04T00:30:00.000Z",
    ]);
  });

  it("keeps the last month of a MONTHLY rule filtered by BYMONTH with a local UNTIL", () => {
    // Act
    const result = run("2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z");
    // Assess: the first Mondays of January (EST) and November (EST), 19:30 in New York.
    expect(
      result.occurrences
        .filter((o) => o.uid === "monthly-bymonth-until-local")
        .map((o) => iso(o.start)),
    ).toEqual(["2025-01-07T00:30:00.000Z", "2025-11-04T00:30:00.000Z"]);
  });

  it("reads the series without a skip and names the guessed zone once", () => {
    // Act
    const result = run("2025-01-01T00:00:00Z", "2026-01-01T00:00:00Z");
    // Assess
    expect(result.skipped).toEqual([]);
    expect(result.warnings.map((w) => w.tzid)).toEqual(["Office Time"]);
  });
});
