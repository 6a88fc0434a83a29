import { describe, expect, it } from "vitest";
import { findIana } from "windows-iana";
import { expand } from "#lib/calendar/expand";
import { WINDOWS_DISPLAY_NAMES } from "#lib/calendar/windows-display-names";
import { globalZone } from "#lib/calendar/zone-names";
import { icsFixture } from "./ics-fixtures";

const iso = (ms: number) => new Date(ms).toISOString();

const expandYear = (name: string, userZone: string) =>
  expand(icsFixture(name), {
    from: Date.parse("2025-01-01T00:00:00Z"),
    to: Date.parse("2026-01-01T00:00:00Z"),
    userZone,
  });

/** Start and end of one event, as UTC instants. */
const spanOf = (result: ReturnType<typeof expand>, uid: string) =>
  result.occurrences.filter((o) => o.uid === uid).map((o) => `${iso(o.start)} ${iso(o.end)}`);

describe("expand: TZIDs that are neither IANA ids nor defined by the feed", () => {
  // The user is in Tokyo, so a zone read as the user's would be 9 hours off every answer below.
  const result = () => expandYear("odd-tzids.ics", "Asia/Tokyo");

  it("reads an Outlook display name as the zone it names, with its summer time", () => {
    // Prepare / Act
    const r = result();
    // Assess: 09:00 New York is 14:00Z in January (EST) and 13:00Z in July (EDT).
    expect(spanOf(r, "display-eastern-winter")).toEqual([
      "2025-01-15T14:00:00.000Z 2025-01-15T14:30:00.000Z",
    ]);
    expect(spanOf(r, "display-eastern-summer")).toEqual([
      "2025-07-15T13:00:00.000Z 2025-07-15T13:30:00.000Z",
    ]);
  });

  it("reads an unquoted display name, whose colon and commas RFC 5545 would have quoted", () => {
    // 10:00 Berlin in July is CEST: 08:00Z (a fixed +01:00 would say 09:00Z).
    expect(spanOf(result(), "display-berlin-unquoted")).toEqual([
      "2025-07-15T08:00:00.000Z 2025-07-15T09:00:00.000Z",
    ]);
  });

  it("reads the older (GMT+hh:mm) spelling of a display name by its place", () => {
    // 10:00 Sydney in January is AEDT (+11): 23:00Z the day before.
    expect(spanOf(result(), "display-sydney-gmt")).toEqual([
      "2025-01-14T23:00:00.000Z 2025-01-15T00:00:00.000Z",
    ]);
  });

  it("reads a display name of an unknown place as the offset it states", () => {
    expect(spanOf(result(), "display-unknown-place")).toEqual([
      "2025-07-15T07:00:00.000Z 2025-07-15T08:00:00.000Z",
    ]);
  });

  it.each([
    ["fixed-utc-plus-01", "2025-07-15T09:00:00.000Z 2025-07-15T10:00:00.000Z"],
    ["fixed-gmt-plus-0100", "2025-07-15T09:00:00.000Z 2025-07-15T10:00:00.000Z"],
    ["fixed-gmt-spaced", "2025-07-15T09:00:00.000Z 2025-07-15T10:00:00.000Z"],
    ["fixed-icloud", "2025-07-15T14:00:00.000Z 2025-07-15T15:00:00.000Z"],
  ])("reads the fixed-offset spelling of %s as that offset", (uid, span) => {
    expect(spanOf(result(), uid)).toEqual([span]);
  });

  it("reads a standard/daylight pair in a zone with those offsets and their dates", () => {
    // GMT-05.00/-04.00 in July is -04:00: 10:00 is 14:00Z (not 15:00Z, as -05:00 would say).
    expect(spanOf(result(), "fixed-lotus-notes")).toEqual([
      "2025-07-15T14:00:00.000Z 2025-07-15T15:00:00.000Z",
    ]);
  });

  it("reads all of them without a skip, guessing only the pair's zone", () => {
    // Prepare / Act
    const r = result();
    // Assess: Tokyo has no summer time, so the pair's zone is a guess, and says so.
    expect(r.occurrences).toHaveLength(10);
    expect(r.skipped).toEqual([]);
    expect(r.warnings.map((w) => w.tzid)).toEqual(["GMT-05.00/-04.00"]);
  });

  it("reads an unknown TZID in the calendar's X-WR-TIMEZONE, with a warning naming it", () => {
    // Prepare / Act
    const r = expandYear("unknown-tzid-x-wr.ics", "Asia/Tokyo");
    // Assess: 10:00 New York in July (EDT) is 14:00Z.
    expect(spanOf(r, "mars-meeting")).toEqual([
      "2025-07-15T14:00:00.000Z 2025-07-15T15:00:00.000Z",
      "2025-07-16T14:00:00.000Z 2025-07-16T15:00:00.000Z",
    ]);
    expect(r.skipped).toEqual([]);
    expect(r.warnings).toEqual([
      {
        tzid: "Mars/Olympus_Mons",
        message:
          'unknown time zone "Mars/Olympus_Mons"; read in America/New_York, the calendar\'s X-WR-TIMEZONE',
      },
    ]);
  });

  it("falls back to the user's zone when the X-WR-TIMEZONE is unknown too, naming both", () => {
    // Prepare
    const text = icsFixture("unknown-tzid-x-wr.ics").replace(
      "X-WR-TIMEZONE:America/New_York",
      "X-WR-TIMEZONE:Atlantis/Capital",
    );
    // Act
    const r = expand(text, {
      from: Date.parse("2025-07-15T00:00:00Z"),
      to: Date.parse("2025-07-16T00:00:00Z"),
      userZone: "Asia/Tokyo",
    });
    // Assess: 10:00 Tokyo is 01:00Z.
    expect(spanOf(r, "mars-meeting")).toEqual([
      "2025-07-15T01:00:00.000Z 2025-07-15T02:00:00.000Z",
    ]);
    expect(r.warnings.map((w) => w.message)).toEqual([
      'unknown X-WR-TIMEZONE "Atlantis/Capital"; the user\'s zone is used',
      'unknown time zone "Mars/Olympus_Mons"; read in Asia/Tokyo, the user\'s zone',
    ]);
  });
});

describe("Outlook display names (CLDR windowsZones)", () => {
  const offsets = (zone: string) => {
    const rules = globalZone(zone);
    return [Date.UTC(2025, 0, 15), Date.UTC(2025, 6, 15)].map((t) => rules?.offsetAt(t));
  };

  it.each([
    // Display names as Windows shows them, and the zone CLDR's windowsZones.xml maps them to.
    ["(UTC-05:00) Eastern Time (US & Canada)", "America/New_York"],
    ["(UTC+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna", "Europe/Berlin"],
    ["(UTC+05:30) Chennai, Kolkata, Mumbai, New Delhi", "Asia/Kolkata"],
    ["(UTC+10:00) Canberra, Melbourne, Sydney", "Australia/Sydney"],
    ["(UTC+00:00) Dublin, Edinburgh, Lisbon, London", "Europe/London"],
    ["(UTC-03:30) Newfoundland", "America/St_Johns"],
  ])("reads %s with the offsets of %s", (display, iana) => {
    expect(offsets(display)).toEqual(offsets(iana));
    expect(offsets(iana).every((o) => typeof o === "number")).toBe(true);
  });

  it("maps every display name of the table to a Windows zone that resolves to a zone", () => {
    const unresolved = WINDOWS_DISPLAY_NAMES.filter(
      ([display, windowsId]) => findIana(windowsId).length === 0 || !globalZone(display),
    );
    expect(unresolved).toEqual([]);
    expect(WINDOWS_DISPLAY_NAMES.length).toBeGreaterThan(130);
  });

  it("does not read a bare place name, or an unknown name, as a zone", () => {
    expect(globalZone("Hawaii")).toBeUndefined();
    expect(globalZone("Mars/Olympus_Mons")).toBeUndefined();
  });
});
