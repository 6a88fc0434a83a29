import fc from "fast-check";
import ICAL from "ical.js";
import { describe, expect, it } from "vitest";
import { expand } from "#lib/calendar/expand";

const DAY = 86_400_000;
const pad = (n: number) => String(n).padStart(2, "0");

/** A one-series feed in UTC, so the reference below needs no zone handling. */
function feed(dtstart: string, rule: string, exdate?: string): string {
  return [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Statuspilot//property test//EN",
    "BEGIN:VEVENT",
    "UID:series",
    `DTSTART:${dtstart}`,
    "DURATION:PT45M",
    `RRULE:${rule}`,
    ...(exdate ? [`EXDATE:${exdate}`] : []),
    "END:VEVENT",
    "END:VCALENDAR",
  ].join("\r\n");
}

/** Reference: ical.js iterating the series from DTSTART, no shortcuts. */
function reference(text: string, from: number, to: number): number[] {
  const vevent = new ICAL.Component(ICAL.parse(text)).getFirstSubcomponent("vevent");
  if (!vevent) return [];
  const dtstart = vevent.getFirstPropertyValue("dtstart") as ICAL.Time;
  const rule = vevent.getFirstPropertyValue("rrule") as ICAL.Recur;
  const exdate = vevent.getFirstPropertyValue("exdate") as ICAL.Time | null;
  const out: number[] = [];
  const it = rule.iterator(dtstart);
  for (let next = it.next(); next; next = it.next()) {
    const ms = next.toUnixTime() * 1000;
    if (ms >= to) break;
    if (exdate && exdate.toUnixTime() * 1000 === ms) continue;
    if (ms + 45 * 60_000 > from) out.push(ms);
  }
  return out;
}

const stamp = (ms: number) => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}00Z`;
};

describe("expansion near the window", () => {
  it("gives the same instances as iterating from DTSTART, for rules that started years ago", () => {
    const days = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];
    const ruleArb = fc.oneof(
      fc.record({
        freq: fc.constant("DAILY"),
        interval: fc.integer({ min: 1, max: 5 }),
        extra: fc.constant(""),
      }),
      fc.record({
        freq: fc.constant("WEEKLY"),
        interval: fc.integer({ min: 1, max: 4 }),
        extra: fc.oneof(
          fc.constant(""),
          fc.subarray(days, { minLength: 1 }).map((d) => `;BYDAY=${d.join(",")}`),
        ),
      }),
      fc.record({
        freq: fc.constant("MONTHLY"),
        interval: fc.integer({ min: 1, max: 6 }),
        extra: fc.constantFrom("", ";BYDAY=-1FR", ";BYMONTHDAY=15,31", ";BYDAY=MO,TU;BYSETPOS=1"),
      }),
      fc.record({
        freq: fc.constant("YEARLY"),
        interval: fc.integer({ min: 1, max: 3 }),
        extra: fc.constantFrom("", ";BYMONTH=2;BYMONTHDAY=29", ";BYMONTH=11;BYDAY=4TH"),
      }),
    );
    fc.assert(
      fc.property(
        ruleArb,
        fc.integer({ min: Date.UTC(2012, 0, 1), max: Date.UTC(2023, 0, 1) }),
        fc.integer({ min: 0, max: 400 }),
        fc.integer({ min: 1, max: 40 }),
        fc.boolean(),
        (r, startMs, offsetDays, spanDays, withUntil) => {
          // Prepare
          const start = Math.floor(startMs / 60_000) * 60_000;
          const from = Date.UTC(2024, 0, 1) + offsetDays * DAY;
          const to = from + spanDays * DAY;
          const until = withUntil ? `;UNTIL=${stamp(from + Math.floor(spanDays / 2) * DAY)}` : "";
          const text = feed(
            stamp(start),
            `FREQ=${r.freq};INTERVAL=${r.interval}${r.extra}${until}`,
          );
          // Act
          const ours = expand(text, { from, to, userZone: "UTC" }).occurrences.map((o) => o.start);
          // Assess
          expect(ours).toEqual(reference(text, from, to));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("expands a daily series from 1700 in a 2024 window (iterating from DTSTART would exceed the step budget)", () => {
    // Prepare
    const text = feed("17000101T090000Z", "FREQ=DAILY");
    // Act
    const result = expand(text, {
      from: Date.UTC(2024, 2, 4),
      to: Date.UTC(2024, 2, 6),
      userZone: "UTC",
    });
    // Assess
    expect(result.skipped).toEqual([]);
    expect(result.occurrences.map((o) => new Date(o.start).toISOString())).toEqual([
      "2024-03-04T09:00:00.000Z",
      "2024-03-05T09:00:00.000Z",
    ]);
  });

  it("keeps COUNT exact by counting from DTSTART", () => {
    const text = feed("20200106T090000Z", "FREQ=WEEKLY;COUNT=10", "20200113T090000Z");
    const result = expand(text, {
      from: Date.UTC(2020, 0, 1),
      to: Date.UTC(2021, 0, 1),
      userZone: "UTC",
    });
    // Ten instances, one of them excluded: the last is 2020-03-09.
    expect(result.occurrences).toHaveLength(9);
    expect(new Date(result.occurrences.at(-1)?.start ?? 0).toISOString()).toBe(
      "2020-03-09T09:00:00.000Z",
    );
  });
});
