import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CalendarParseError } from "#lib/calendar/errors";
import { expand } from "#lib/calendar/expand";
import { icsFixture } from "./ics-fixtures";

const iso = (ms: number) => new Date(ms).toISOString();

const expandDay = (name: string, from: string, to: string) => {
  const result = expand(icsFixture(name), {
    from: Date.parse(from),
    to: Date.parse(to),
    userZone: "Europe/Berlin",
    userEmails: ["me@example.com"],
  });
  return {
    ...result,
    rows: result.occurrences.map((o) => `${o.uid} ${iso(o.start)} ${iso(o.end)}`),
  };
};

describe("expand: components whose END line is missing or garbled", () => {
  it("skips an unterminated time zone and event with a reason, reads the zone's events in the user's zone and expands the events after them", () => {
    // Prepare / Act
    const { rows, skipped, warnings } = expandDay(
      "unterminated-components.ics",
      "2026-03-09T00:00:00Z",
      "2026-03-10T00:00:00Z",
    );
    // Assess
    expect(rows).toEqual([
      "standup 2026-03-09T08:00:00.000Z 2026-03-09T08:15:00.000Z",
      // The zone's block never ended, so its name is unknown: read in the user's zone.
      "in-custom-zone 2026-03-09T08:00:00.000Z 2026-03-09T09:00:00.000Z",
      "review 2026-03-09T14:00:00.000Z 2026-03-09T15:00:00.000Z",
    ]);
    expect(skipped).toEqual([
      { uid: "Custom/Office", reason: "VTIMEZONE component began but did not end" },
      {
        uid: "cut-short",
        summary: "Its END line is missing",
        reason: "VEVENT component began but did not end",
      },
    ]);
    expect(warnings.map((w) => w.tzid)).toEqual(["Custom/Office"]);
  });

  it("refuses a feed cut off inside its only event, so a truncated download never wipes a timeline", () => {
    // Prepare
    const text = icsFixture("unterminated-components.ics");
    const truncated = text.slice(0, text.indexOf("END:VEVENT"));
    // Act / Assess
    expect(() =>
      expand(truncated, { from: 0, to: Date.parse("2030-01-01"), userZone: "UTC" }),
    ).toThrow(CalendarParseError);
  });
});

describe("expand: recurrences without a defined set, and mistyped values", () => {
  const window = ["2026-03-08T00:00:00Z", "2026-03-14T00:00:00Z"] as const;

  it("skips an all-day series repeating every second with a reason, and keeps its moved instance", () => {
    // Prepare / Act
    const { rows, skipped } = expandDay("undefined-recurrences.ics", ...window);
    // Assess
    expect(skipped).toContainEqual({
      uid: "secondly-all-day",
      summary: "Holiday repeating every second",
      reason: "RRULE FREQ=SECONDLY cannot repeat an all-day event",
    });
    expect(rows).toContain("secondly-all-day 2026-03-10T23:00:00.000Z 2026-03-11T23:00:00.000Z");
  });

  it("skips a rule with a negative COUNT with a reason instead of dropping it silently", () => {
    // Prepare / Act
    const { rows, skipped } = expandDay("undefined-recurrences.ics", ...window);
    // Assess
    expect(skipped).toContainEqual({
      uid: "negative-count",
      summary: "Counts backwards",
      reason: "RRULE FREQ=DAILY;COUNT=-1: COUNT must be a positive integer",
    });
    expect(rows.some((r) => r.startsWith("negative-count"))).toBe(false);
  });

  it("reads INTERVAL=0 as the default interval of 1, as ical.js parses it", () => {
    // Prepare / Act
    const { rows } = expandDay("undefined-recurrences.ics", ...window);
    // Assess
    expect(rows.filter((r) => r.startsWith("daily-interval-zero"))).toEqual([
      "daily-interval-zero 2026-03-09T07:00:00.000Z 2026-03-09T07:30:00.000Z",
      "daily-interval-zero 2026-03-10T07:00:00.000Z 2026-03-10T07:30:00.000Z",
    ]);
  });

  it("keeps the text of SUMMARY, STATUS and ATTENDEE when they carry a date VALUE type", () => {
    // Prepare / Act
    const { occurrences } = expandDay("undefined-recurrences.ics", ...window);
    // Assess
    expect(occurrences.find((o) => o.uid === "mistyped")).toMatchObject({
      summary: "Wartime planning",
      status: "CONFIRMED",
      partstat: "ACCEPTED",
    });
  });
});

describe("expand: meetings in a DST gap (Europe/Berlin springs forward 02:00 → 03:00 on 2025-03-30)", () => {
  const window = ["2025-03-29T00:00:00Z", "2025-04-10T00:00:00Z"] as const;
  const rowsOf = (uid: string) =>
    expandDay("dst-gap.ics", ...window).rows.filter((r) => r.startsWith(`${uid} `));

  it("moves a start in the gap forward by the gap and keeps the meeting's wall-clock length", () => {
    // 02:30–03:30 wall: the start reads as 03:30 CEST (RFC 5545 §3.3.5); the hour is kept, so
    // it shows 03:30–04:30 CEST instead of collapsing to 03:30–03:30.
    expect(rowsOf("start-in-gap")).toEqual([
      "start-in-gap 2025-03-30T01:30:00.000Z 2025-03-30T02:30:00.000Z",
    ]);
  });

  it("moves a meeting that lies wholly in the gap forward by the gap", () => {
    expect(rowsOf("inside-gap")).toEqual([
      "inside-gap 2025-03-30T01:15:00.000Z 2025-03-30T01:45:00.000Z",
    ]);
  });

  it("keeps the planned length of a meeting in the gap that would otherwise end before it starts", () => {
    // 02:30–03:15 wall: read literally it would end (03:15 CEST) before it starts (03:30 CEST).
    expect(rowsOf("short-from-gap")).toEqual([
      "short-from-gap 2025-03-30T01:30:00.000Z 2025-03-30T02:15:00.000Z",
    ]);
  });

  it("keeps the real length of a meeting that starts before the gap", () => {
    // 01:30 CET to 03:30 CEST is one real hour; 01:30 to an end in the gap (02:30 → 03:30 CEST) too.
    expect(rowsOf("across-gap")).toEqual([
      "across-gap 2025-03-30T00:30:00.000Z 2025-03-30T01:30:00.000Z",
    ]);
    expect(rowsOf("ends-in-gap")).toEqual([
      "ends-in-gap 2025-03-30T00:30:00.000Z 2025-03-30T01:30:00.000Z",
    ]);
  });

  it("gives every instance of a series that starts in the gap its wall-clock length", () => {
    expect(rowsOf("weekly-from-gap")).toEqual([
      "weekly-from-gap 2025-03-30T01:30:00.000Z 2025-03-30T02:30:00.000Z",
      "weekly-from-gap 2025-04-06T00:30:00.000Z 2025-04-06T01:30:00.000Z",
    ]);
  });

  it("reads the RFC's own example, 02:30 New York on 2007-03-11, as 03:30 EDT", () => {
    // Prepare / Act
    const { rows } = expandDay("dst-gap.ics", "2007-03-11T00:00:00Z", "2007-03-12T00:00:00Z");
    // Assess
    expect(rows).toEqual(["rfc-example 2007-03-11T07:30:00.000Z 2007-03-11T08:30:00.000Z"]);
  });
});

describe("expand: wall-clock lengths across DST changes (property)", () => {
  const zones = ["Europe/Berlin", "America/New_York", "Australia/Sydney", "Europe/London"];
  const pad = (n: number) => String(n).padStart(2, "0");
  const stamp = (day: Date, minutes: number) => {
    const t = new Date(day.getTime() + minutes * 60_000);
    return `${t.getUTCFullYear()}${pad(t.getUTCMonth() + 1)}${pad(t.getUTCDate())}T${pad(t.getUTCHours())}${pad(t.getUTCMinutes())}00`;
  };
  // Days on which these zones change their clocks, read as wall-clock dates.
  const changeDays = [
    "2025-03-09",
    "2025-03-30",
    "2025-04-06",
    "2025-10-05",
    "2025-10-26",
    "2025-11-02",
  ];

  it("never turns a meeting with a positive wall-clock length into an empty or negative one", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...zones),
        fc.constantFrom(...changeDays),
        // Starts and lengths biased to the small hours, where the clocks change.
        fc.oneof(fc.integer({ min: 60, max: 200 }), fc.integer({ min: 0, max: 24 * 60 - 1 })),
        fc.oneof(fc.constantFrom(15, 30, 45, 60, 90), fc.integer({ min: 1, max: 240 })),
        (zone, day, startMinute, lengthMinutes) => {
          // Prepare
          const midnight = new Date(`${day}T00:00:00Z`);
          const ics = [
            "BEGIN:VCALENDAR",
            "BEGIN:VEVENT",
            "UID:m",
            `DTSTART;TZID=${zone}:${stamp(midnight, startMinute)}`,
            `DTEND;TZID=${zone}:${stamp(midnight, startMinute + lengthMinutes)}`,
            "END:VEVENT",
            "END:VCALENDAR",
          ].join("\r\n");
          // Act
          const { occurrences } = expand(ics, {
            from: midnight.getTime() - 2 * 86_400_000,
            to: midnight.getTime() + 3 * 86_400_000,
            userZone: zone,
          });
          // Assess
          expect(occurrences).toHaveLength(1);
          const [o] = occurrences;
          expect(o && o.end - o.start).toBeGreaterThan(0);
          // Off the plan by at most the hour the clocks skip or repeat.
          expect(o && o.end - o.start).toBeLessThanOrEqual((lengthMinutes + 60) * 60_000);
          expect(o && o.end - o.start).toBeGreaterThanOrEqual((lengthMinutes - 60) * 60_000);
        },
      ),
      { numRuns: 400, seed: 3305 },
    );
  });
});

describe("expand: a VTIMEZONE whose offset would change every second", () => {
  it("reads its events in the user's zone at once, with a warning, and a zone tzdata knows from tzdata", () => {
    // Prepare / Act
    const { rows, skipped, warnings } = expandDay(
      "runaway-vtimezone.ics",
      "2026-03-09T00:00:00Z",
      "2026-03-10T00:00:00Z",
    );
    // Assess
    expect(skipped).toEqual([]);
    expect(warnings).toEqual([
      {
        tzid: "Custom/Runaway",
        message:
          'time zone "Custom/Runaway": observance repeats SECONDLY, more often than any offset changes; read in Europe/Berlin, the user\'s zone',
      },
    ]);
    expect(rows).toEqual([
      "in-known-zone 2026-03-09T08:00:00.000Z 2026-03-09T08:15:00.000Z",
      "in-runaway-zone 2026-03-09T08:00:00.000Z 2026-03-09T09:00:00.000Z",
    ]);
  });
});
