import ical from "node-ical";
import { describe, expect, it } from "vitest";
import { expand } from "#lib/calendar/expand";
import { offsetPairOf, PAIR_ZONES } from "#lib/calendar/offset-pairs";
import { icsFixture } from "./ics-fixtures";

/**
 * Zone names as Outlook, Exchange and Lotus Notes write them into TZID, with no VTIMEZONE to
 * define them. Each fixture event is a 13:00-14:00 meeting on 15 January and on 15 July 2025;
 * the instants below are worked out by hand from each zone's offsets on those days.
 */
const feedText = icsFixture("outlook-zone-spellings.ics");
const iso = (ms: number) => new Date(ms).toISOString();

const read = (userZone: string, text = feedText) =>
  expand(text, {
    from: Date.parse("2025-01-01T00:00:00Z"),
    to: Date.parse("2026-01-01T00:00:00Z"),
    userZone,
  });

/** "HH:MM" of the January and July meetings in UTC, as `startsOf` reports them. */
const startsOf = (result: ReturnType<typeof expand>, uid: string) =>
  ["january", "july"].map((season) => {
    const found = result.occurrences.filter((o) => o.uid === `${uid}-${season}`);
    return found.map((o) => `${iso(o.start).slice(5, 16)}/${(o.end - o.start) / 60_000}`).join();
  });

const NEW_YORK = ["01-15T18:00/60", "07-15T17:00/60"]; // EST -05:00, EDT -04:00
const BERLIN = ["01-15T12:00/60", "07-15T11:00/60"]; // CET +01:00, CEST +02:00
const LONDON = ["01-15T13:00/60", "07-15T12:00/60"]; // GMT, BST +01:00
const UTC = ["01-15T13:00/60", "07-15T13:00/60"];
const PLUS_ONE = ["01-15T12:00/60", "07-15T12:00/60"]; // +01:00 all year
const SYDNEY = ["01-15T02:00/60", "07-15T03:00/60"]; // AEDT +11:00 in January, AEST +10:00 in July
const SANTIAGO = ["01-15T16:00/60", "07-15T17:00/60"]; // -03:00 in the southern summer, -04:00
const HALIFAX = ["01-15T17:00/60", "07-15T16:00/60"]; // AST -04:00, ADT -03:00
const PLUS_THREE = ["01-15T10:00/60", "07-15T10:00/60"];

/** Spellings whose reading does not depend on who reads them (pairs here have one zone). */
const SPELLINGS: Array<[uid: string, starts: string[]]> = [
  ["pair-lotus-quoted", NEW_YORK],
  ["pair-lotus-unquoted", NEW_YORK],
  ["pair-notes-eastern", NEW_YORK],
  ["pair-notes-berlin", BERLIN],
  ["pair-notes-london", LONDON],
  ["pair-notes-equal", PLUS_ONE],
  ["pair-sydney", SYDNEY],
  ["pair-nowhere", PLUS_THREE],
  ["display-eastern-quoted", NEW_YORK],
  ["display-eastern-unquoted", NEW_YORK],
  ["display-eastern-dots", NEW_YORK],
  ["display-berlin-slashes", BERLIN],
  ["display-utc", UTC],
  ["windows-eastern", NEW_YORK],
  ["windows-w-europe-quoted", BERLIN],
  ["windows-eastern-versioned", NEW_YORK],
  ["windows-utc", UTC],
  ["exchange-utc", UTC],
];

describe.each(["America/New_York", "Asia/Tokyo"])(
  "Outlook zone spellings read by a user in %s",
  (userZone) => {
    it.each(SPELLINGS)("reads %s in the zone it names, in winter and in summer", (uid, starts) => {
      expect(startsOf(read(userZone), uid)).toEqual(starts);
    });

    it("reads a standard/daylight pair used north and south of the equator as Santiago", () => {
      expect(startsOf(read(userZone), "pair-chile-or-halifax")).toEqual(SANTIAGO);
    });

    it("keeps the wall time of a weekly series in a pair across the change to summer time", () => {
      // Prepare / Act
      const series = read(userZone).occurrences.filter((o) => o.uid === "pair-lotus-series");
      // Assess: 13:00 EST on 3 March, 13:00 EDT on 17 March; the EXDATE removes 10 March.
      expect(series.map((o) => iso(o.start))).toEqual([
        "2025-03-03T18:00:00.000Z",
        "2025-03-17T17:00:00.000Z",
      ]);
    });

    it("skips nothing", () => {
      expect(read(userZone).skipped).toEqual([]);
    });
  },
);

describe("a standard/daylight pair and the person reading it", () => {
  const warningsOf = (result: ReturnType<typeof expand>) =>
    result.warnings.map((w) => `${w.tzid}: ${w.message}`).sort();

  it("reads a pair in the person's own zone when it has exactly those offsets, without a warning", () => {
    // Prepare / Act
    const r = read("America/New_York");
    // Assess: only the zones chosen for the person are reported, each by its TZID.
    expect(warningsOf(r)).toEqual(
      [
        'Customized Time Zone: unknown time zone "Customized Time Zone"; read in America/New_York, the user\'s zone',
        'GMT +0100 (Standard) / GMT +0200 (Daylight): time zone "GMT +0100 (Standard) / GMT +0200 (Daylight)" names UTC+01:00 standard, UTC+02:00 daylight; read in Europe/Berlin, the most populous zone with those offsets',
        'GMT -0000 (Standard) / GMT +0100 (Daylight): time zone "GMT -0000 (Standard) / GMT +0100 (Daylight)" names UTC standard, UTC+01:00 daylight; read in Europe/London, the most populous zone with those offsets',
        'GMT+03.00/+04.00: time zone "GMT+03.00/+04.00" names UTC+03:00 standard, UTC+04:00 daylight; read in UTC+03:00, as no zone has those offsets',
        'GMT+10.00/+11.00: time zone "GMT+10.00/+11.00" names UTC+10:00 standard, UTC+11:00 daylight; read in Australia/Sydney, the most populous zone with those offsets',
        'GMT-04.00/-03.00: time zone "GMT-04.00/-03.00" names UTC-04:00 standard, UTC-03:00 daylight; read in America/Santiago, the most populous zone with those offsets',
      ].sort(),
    );
  });

  it("names the zone chosen for a pair the person's zone does not have", () => {
    // Prepare / Act
    const r = read("Asia/Tokyo");
    // Assess
    expect(r.warnings).toContainEqual({
      tzid: "GMT-05.00/-04.00",
      message:
        'time zone "GMT-05.00/-04.00" names UTC-05:00 standard, UTC-04:00 daylight; read in America/New_York, the most populous zone with those offsets',
    });
    expect(r.warnings.filter((w) => w.tzid === "GMT-05.00/-04.00")).toHaveLength(1);
  });

  it.each([
    ["America/Halifax", HALIFAX],
    ["America/Santiago", SANTIAGO],
  ])("reads GMT-04.00/-03.00 in %s for a person there", (userZone, starts) => {
    // Prepare / Act
    const r = read(userZone);
    // Assess
    expect(startsOf(r, "pair-chile-or-halifax")).toEqual(starts);
    expect(r.warnings.filter((w) => w.tzid === "GMT-04.00/-03.00")).toEqual([]);
  });

  it("reads a southern pair in the person's own southern zone", () => {
    // Melbourne has Sydney's offsets and dates; no warning, the person's zone is used.
    const r = read("Australia/Melbourne");
    expect(startsOf(r, "pair-sydney")).toEqual(SYDNEY);
    expect(r.warnings.filter((w) => w.tzid === "GMT+10.00/+11.00")).toEqual([]);
  });

  it("prefers the calendar's X-WR-TIMEZONE to the most populous zone when it has the offsets", () => {
    // Prepare
    const text = feedText.replace(
      "METHOD:PUBLISH",
      "METHOD:PUBLISH\nX-WR-TIMEZONE:America/Toronto",
    );
    // Act
    const r = read("Asia/Tokyo", text);
    // Assess
    expect(startsOf(r, "pair-lotus-quoted")).toEqual(NEW_YORK);
    expect(r.warnings).toContainEqual({
      tzid: "GMT-05.00/-04.00",
      message:
        'time zone "GMT-05.00/-04.00" names UTC-05:00 standard, UTC-04:00 daylight; read in America/Toronto, the calendar\'s X-WR-TIMEZONE',
    });
  });

  it("reads the lost Customized Time Zone in the user's zone", () => {
    expect(startsOf(read("Asia/Tokyo"), "customized-without-vtimezone")).toEqual([
      "01-15T04:00/60",
      "07-15T04:00/60",
    ]);
  });
});

describe("cross-check with node-ical", () => {
  it("agrees on the spellings node-ical resolves to a zone of its own", () => {
    // Prepare: node-ical maps Windows ids, quoted display names and UTC itself.
    const resolved = [
      "display-eastern-quoted",
      "display-utc",
      "windows-eastern",
      "windows-w-europe-quoted",
      "windows-utc",
    ];
    const theirs = ical.sync.parseICS(feedText);
    // Act
    const ours = read("Asia/Tokyo");
    // Assess
    for (const uid of resolved) {
      for (const season of ["january", "july"]) {
        const event = theirs[`${uid}-${season}`];
        const start = event?.type === "VEVENT" ? event.start.getTime() : undefined;
        const mine = ours.occurrences.find((o) => o.uid === `${uid}-${season}`)?.start;
        expect(mine, `${uid}-${season}`).toBe(start);
      }
    }
  });
});

describe("the spellings of a standard/daylight pair", () => {
  it.each([
    ["GMT-05.00/-04.00", -300, -240],
    ["GMT -0500 (Standard) / GMT -0400 (Daylight)", -300, -240],
    ["GMT -0000 (Standard) / GMT +0100 (Daylight)", 0, 60],
    ["GMT+05.30/+06.30", 330, 390],
    ["(GMT+10:00/+11:00)", 600, 660],
    ["UTC-3/-2", -180, -120],
  ])("reads %s as %i and %i minutes", (name, standard, daylight) => {
    expect(offsetPairOf(name)).toEqual({
      standard: standard * 60_000,
      daylight: daylight * 60_000,
    });
  });

  it.each([
    "GMT-0500",
    "(UTC-05:00) Eastern Time (US & Canada)",
    "America/New_York",
    "GMT+15.00/+16.00",
    "GMT+01.75/+02.00",
    "Eastern Standard Time",
    `GMT+01.00/${"+".repeat(5000)}`,
  ])("does not read %s as a pair", (name) => {
    expect(offsetPairOf(name)).toBeUndefined();
  });
});

describe("the zone table for standard/daylight pairs, against the runtime's tzdata", () => {
  /** The distinct offsets (minutes) of a zone through 2025, read from Intl's own offset names. */
  const offsetsIn2025 = (zone: string): number[] => {
    const format = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" });
    const seen = new Set<number>();
    for (let day = 0; day < 365; day += 7) {
      const name = format
        .formatToParts(Date.UTC(2025, 0, 1) + day * 86_400_000)
        .find((p) => p.type === "timeZoneName")?.value;
      const m = /GMT(?:([+-])(\d{2}):(\d{2}))?/.exec(name ?? "");
      if (!m) throw new Error(`no offset in ${name}`);
      seen.add(m[1] ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0);
    }
    return [...seen].sort((a, b) => a - b);
  };

  it.each(Object.entries(PAIR_ZONES))(
    "keys %s to %s, a zone with exactly those offsets",
    (key, zone) => {
      expect(offsetsIn2025(zone).join("/")).toBe(key);
    },
  );

  it("has an entry for every pair of offsets that some zone uses", () => {
    // A zone that starts (or stops) summer time changes this; the table is then updated by hand.
    const missing = Intl.supportedValuesOf("timeZone")
      .map((zone) => [zone, offsetsIn2025(zone)] as const)
      .filter(([, offsets]) => offsets.length === 2 && !(offsets.join("/") in PAIR_ZONES))
      .map(([zone, offsets]) => `${zone} ${offsets.join("/")}`);
    expect(missing).toEqual([]);
  });
});
