import { describe, expect, it } from "vitest";
import { CalendarParseError } from "#lib/calendar/errors";
import { expand } from "#lib/calendar/expand";
import { icsFixture } from "./ics-fixtures";

const iso = (ms: number) => new Date(ms).toISOString();
const at = (s: string) => Date.parse(s);

const spans = (
  name: string,
  from: string,
  to: string,
  userZone = "Europe/Berlin",
  emails?: string[],
) => {
  const result = expand(icsFixture(name), {
    from: at(from),
    to: at(to),
    userZone,
    userEmails: emails,
  });
  return {
    ...result,
    rows: result.occurrences.map((o) => `${o.uid} ${iso(o.start)} ${iso(o.end)}`),
  };
};

describe("expand: Google export with X-WR-TIMEZONE", () => {
  it("expands a weekly series from 2015 inside a two-week window only", () => {
    // Prepare / Act
    const { occurrences } = spans(
      "google-x-wr-timezone.ics",
      "2024-03-04T00:00:00Z",
      "2024-03-18T00:00:00Z",
    );
    // Assess
    const standups = occurrences.filter((o) => o.uid === "standup-2015@google.com");
    expect(standups.map((o) => iso(o.start))).toEqual([
      "2024-03-04T08:00:00.000Z",
      "2024-03-11T08:00:00.000Z",
    ]);
    expect(standups[0]?.attendeeCount).toBe(2);
  });

  it("reads floating times in the calendar's X-WR-TIMEZONE and reports the user's PARTSTAT", () => {
    // Prepare / Act
    const { occurrences } = spans(
      "google-x-wr-timezone.ics",
      "2024-03-11T00:00:00Z",
      "2024-03-12T00:00:00Z",
      "America/New_York",
      ["ANA@example.com"],
    );
    // Assess
    const review = occurrences.find((o) => o.uid === "floating-review@google.com");
    expect(review && [iso(review.start), iso(review.end)]).toEqual([
      "2024-03-11T08:00:00.000Z",
      "2024-03-11T09:00:00.000Z",
    ]);
    expect(review?.partstat).toBe("DECLINED");
  });

  it("places an all-day DATE event at midnight of the user's zone", () => {
    // Prepare / Act
    const { occurrences } = spans(
      "google-x-wr-timezone.ics",
      "2024-03-12T00:00:00Z",
      "2024-03-13T00:00:00Z",
      "Asia/Tokyo",
    );
    // Assess
    const offsite = occurrences.find((o) => o.uid === "allday-offsite@google.com");
    expect(offsite).toMatchObject({ allDay: true, transp: "TRANSPARENT" });
    expect(offsite && [iso(offsite.start), iso(offsite.end)]).toEqual([
      "2024-03-11T15:00:00.000Z",
      "2024-03-12T15:00:00.000Z",
    ]);
  });
});

describe("expand: Outlook/Exchange export", () => {
  it("applies the Windows-zone VTIMEZONE, the EXDATE, the moved occurrence and UNTIL", () => {
    // Prepare / Act
    const { rows } = spans("outlook-exchange.ics", "2024-03-01T00:00:00Z", "2024-04-15T00:00:00Z");
    // Assess
    const sync = rows.filter((r) => r.startsWith("040000008200E00074C5B7101A82E00800000000B0A3"));
    expect(sync.map((r) => r.split(" ").slice(1).join(" "))).toEqual([
      "2024-03-05T14:00:00.000Z 2024-03-05T14:30:00.000Z",
      // moved to 08:00 "Pacific Standard Time" (quoted TZID, no VTIMEZONE: CLDR mapping)
      "2024-03-07T16:00:00.000Z 2024-03-07T17:00:00.000Z",
      "2024-03-12T14:00:00.000Z 2024-03-12T14:30:00.000Z",
      // 03-14 removed by EXDATE
      "2024-03-19T14:00:00.000Z 2024-03-19T14:30:00.000Z",
      "2024-03-21T14:00:00.000Z 2024-03-21T14:30:00.000Z",
      "2024-03-26T14:00:00.000Z 2024-03-26T14:30:00.000Z",
      "2024-03-28T14:00:00.000Z 2024-03-28T14:30:00.000Z",
      // UNTIL=20240329T140000Z ends the series before April
    ]);
  });

  it("keeps the OOF busy status and CLASS of an all-day leave", () => {
    // Prepare / Act
    const { occurrences } = spans(
      "outlook-exchange.ics",
      "2024-03-18T00:00:00Z",
      "2024-03-19T00:00:00Z",
    );
    // Assess
    const leave = occurrences.find((o) => o.summary === "Annual leave");
    expect(leave).toMatchObject({ busyStatus: "OOF", class: "PRIVATE", allDay: true });
    expect(leave && [iso(leave.start), iso(leave.end)]).toEqual([
      "2024-03-17T23:00:00.000Z",
      "2024-03-22T23:00:00.000Z",
    ]);
  });
});

describe("expand: Apple export", () => {
  it("reports a tentative reply through the EMAIL parameter", () => {
    // Prepare / Act
    const { occurrences } = spans(
      "apple-tentative.ics",
      "2024-03-12T00:00:00Z",
      "2024-03-13T00:00:00Z",
      "UTC",
      ["ana@example.com"],
    );
    // Assess
    expect(occurrences).toHaveLength(1);
    expect(occurrences[0]).toMatchObject({
      partstat: "TENTATIVE",
      attendeeCount: 2,
      start: at("2024-03-12T14:30:00Z"),
    });
  });
});

describe("expand: edge cases", () => {
  const window = ["2024-03-29T00:00:00Z", "2024-11-01T00:00:00Z"] as const;

  it("registers an IANA TZID without VTIMEZONE and keeps wall time across the DST change", () => {
    const { rows } = spans("edge-cases.ics", ...window);
    expect(rows.filter((r) => r.startsWith("berlin-no-vtimezone"))).toEqual([
      "berlin-no-vtimezone 2024-03-29T08:00:00.000Z 2024-03-29T08:30:00.000Z",
      "berlin-no-vtimezone 2024-03-30T08:00:00.000Z 2024-03-30T08:30:00.000Z",
      "berlin-no-vtimezone 2024-03-31T07:00:00.000Z 2024-03-31T07:30:00.000Z",
      "berlin-no-vtimezone 2024-04-01T07:00:00.000Z 2024-04-01T07:30:00.000Z",
    ]);
  });

  it("reads a time in the DST gap with the offset before the gap, and an overlap as its first occurrence", () => {
    const { rows } = spans("edge-cases.ics", ...window);
    // RFC 5545 §3.3.5: 02:30 on 2024-03-31 is 03:30 CEST; 02:30 on 2024-10-27 is 02:30 CEST.
    expect(rows).toContain("gap 2024-03-31T01:30:00.000Z 2024-03-31T02:30:00.000Z");
    expect(rows).toContain("overlap 2024-10-27T00:30:00.000Z 2024-10-27T01:00:00.000Z");
  });

  it("skips a broken event with a reason, and expands the rest", () => {
    const { skipped, rows } = spans("edge-cases.ics", ...window);
    expect(skipped).toEqual([
      {
        uid: "broken",
        summary: "Broken start",
        reason: "DTSTART 2024--0-3-T0:: is not a real date",
      },
    ]);
    expect(rows.length).toBeGreaterThan(5);
  });

  it("reads an unknown zone (and no X-WR-TIMEZONE) in the user's zone, with a warning naming it", () => {
    const { warnings, rows } = spans("edge-cases.ics", ...window);
    // 09:00 Berlin on 2024-03-30 is CET: 08:00Z.
    expect(rows).toContain("unknown-zone 2024-03-30T08:00:00.000Z 2024-03-30T09:00:00.000Z");
    expect(warnings).toEqual([
      {
        tzid: "Mars/Olympus_Mons",
        message: 'unknown time zone "Mars/Olympus_Mons"; read in Europe/Berlin, the user\'s zone',
      },
    ]);
  });

  it("swaps DTEND before DTSTART, keeps zero-length events and makes DTEND=DTSTART all-day one day", () => {
    const { rows } = spans("edge-cases.ics", ...window);
    expect(rows).toContain("swapped 2024-03-30T11:00:00.000Z 2024-03-30T12:00:00.000Z");
    expect(rows).toContain("zero 2024-03-30T13:00:00.000Z 2024-03-30T13:00:00.000Z");
    expect(rows).toContain("allday-equal 2024-03-31T22:00:00.000Z 2024-04-01T22:00:00.000Z");
  });

  it("keeps an override whose master is missing", () => {
    const { occurrences } = spans("edge-cases.ics", ...window);
    expect(occurrences.find((o) => o.uid === "orphan-override")).toMatchObject({
      start: at("2024-04-02T10:00:00Z"),
      recurrenceId: "2024-04-02T09:00:00.000Z",
    });
  });

  it("throws a one-line CalendarParseError for text that is not iCalendar", () => {
    expect(() => expand("hello\nworld", { from: 0, to: 1, userZone: "UTC" })).toThrow(
      CalendarParseError,
    );
    expect(() => expand("hello", { from: 0, to: 1, userZone: "UTC" })).toThrow(
      /^not an iCalendar feed/,
    );
  });

  it("salvages the good events of a feed with a malformed line", () => {
    const text = [
      "BEGIN:VCALENDAR",
      "BEGIN:VEVENT",
      "UID:ok",
      "DTSTART:20240301T100000Z",
      "DTEND:20240301T110000Z",
      "END:VEVENT",
      "BEGIN:VEVENT",
      "UID:bad",
      "THIS LINE HAS NO COLON",
      "END:VEVENT",
      "END:VCALENDAR",
    ].join("\r\n");
    const result = expand(text, {
      from: at("2024-03-01T00:00:00Z"),
      to: at("2024-03-02T00:00:00Z"),
      userZone: "UTC",
    });
    expect(result.occurrences.map((o) => o.uid)).toEqual(["ok"]);
    expect(result.skipped).toEqual([expect.objectContaining({ uid: "bad" })]);
  });
});

describe("expand: odd VTIMEZONE definitions", () => {
  it("reads a zone with a year-0001 start and several historic eras", () => {
    // Prepare / Act
    const { rows, skipped } = spans(
      "odd-vtimezone.ics",
      "1900-01-01T00:00:00Z",
      "2030-01-01T00:00:00Z",
      "UTC",
    );
    // Assess: summer time all year in 1941, CET in January 2024, CEST in July 2024
    expect(skipped).toEqual([]);
    expect(rows).toEqual([
      "wartime 1941-01-15T08:00:00.000Z 1941-01-15T09:00:00.000Z",
      "winter 2024-01-15T09:00:00.000Z 2024-01-15T10:00:00.000Z",
      "summer 2024-07-15T08:00:00.000Z 2024-07-15T09:00:00.000Z",
    ]);
  });
});
