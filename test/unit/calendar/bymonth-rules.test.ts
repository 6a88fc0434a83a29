import { describe, expect, it } from "vitest";
import { expand } from "#lib/calendar/expand";
import { berlinWall, icsFixture } from "./ics-fixtures";

const text = icsFixture("bymonth-nth-weekday.ics");

const wall = (ms: number) => berlinWall.format(ms);

const WEEKDAY = { SU: 0, MO: 1, TU: 2, WE: 3, TH: 4, FR: 5, SA: 6 } as const;

/**
 * The oracle: the nth (or, negative, nth-last) given weekday of a month, by walking its days.
 * A plain restatement of "BYDAY=3WE within the month", sharing nothing with ical.js.
 */
function nthWeekday(year: number, month: number, n: number, weekday: number): number | undefined {
  const days: number[] = [];
  for (let day = 1; day <= 31; day++) {
    const date = new Date(Date.UTC(year, month - 1, day));
    if (date.getUTCMonth() !== month - 1) break;
    if (date.getUTCDay() === weekday) days.push(day);
  }
  return n > 0 ? days[n - 1] : days[days.length + n];
}

const pad = (n: number) => String(n).padStart(2, "0");

/** Expected Berlin wall times from `start` (a month) to `end`, every `interval` months. */
function expected(opts: {
  start: [number, number];
  end: [number, number];
  months: number[];
  n: number;
  weekday: keyof typeof WEEKDAY;
  time: string;
  interval?: number;
  count?: number;
}): string[] {
  const out: string[] = [];
  const [y0, m0] = opts.start;
  for (let i = 0; ; i += opts.interval ?? 1) {
    const year = y0 + Math.floor((m0 - 1 + i) / 12);
    const month = ((m0 - 1 + i) % 12) + 1;
    if (year * 12 + month > opts.end[0] * 12 + opts.end[1]) break;
    if (!opts.months.includes(month)) continue;
    const day = nthWeekday(year, month, opts.n, WEEKDAY[opts.weekday]);
    if (day !== undefined) out.push(`${year}-${pad(month)}-${pad(day)} ${opts.time}`);
    if (out.length === opts.count) break;
  }
  return out;
}

describe("expand: BYMONTH with an nth weekday (ical.js loses instances of MONTHLY rules)", () => {
  // Three years, 2025 to 2027.
  const result = expand(text, {
    from: Date.parse("2025-01-01T00:00:00Z"),
    to: Date.parse("2028-01-01T00:00:00Z"),
    userZone: "UTC",
  });
  const wallTimes = (uid: string) =>
    result.occurrences.filter((o) => o.uid === uid).map((o) => wall(o.start));

  it("expands MONTHLY;BYMONTH=3,6;BYDAY=3WE of a series from 2015 to every March and June", () => {
    // A window that opens in March: the series is fast-forwarded to a start in February.
    const march = expand(text, {
      from: Date.parse("2025-03-01T00:00:00Z"),
      to: Date.parse("2028-01-01T00:00:00Z"),
      userZone: "UTC",
    });
    const times = march.occurrences
      .filter((o) => o.uid === "quarterly-review-since-2015")
      .map((o) => wall(o.start));
    expect(times).toEqual(
      expected({
        start: [2025, 3],
        end: [2027, 12],
        months: [3, 6],
        n: 3,
        weekday: "WE",
        time: "10:00",
      }),
    );
    expect(times[0]).toBe("2025-03-19 10:00");
  });

  it("does not put an instance in the DTSTART month that BYMONTH excludes, nor lose March", () => {
    expect(wallTimes("monthly-from-january")).toEqual(
      expected({
        start: [2025, 1],
        end: [2027, 12],
        months: [3, 6],
        n: 3,
        weekday: "WE",
        time: "10:00",
      }),
    );
  });

  it("gives the same set for the YEARLY spelling of the rule", () => {
    expect(wallTimes("yearly-from-january")).toEqual(wallTimes("monthly-from-january"));
    expect(wallTimes("yearly-from-january")).toHaveLength(6);
  });

  it("counts COUNT among the months BYMONTH keeps", () => {
    expect(wallTimes("last-friday-of-quarter")).toEqual(
      expected({
        start: [2025, 1],
        end: [2027, 12],
        months: [3, 6, 9, 12],
        n: -1,
        weekday: "FR",
        time: "16:00",
        count: 6,
      }),
    );
  });

  it("keeps INTERVAL's phase: every second month from March never lands on June", () => {
    expect(wallTimes("every-other-month")).toEqual(
      expected({
        start: [2025, 3],
        end: [2027, 12],
        months: [3, 6],
        n: 3,
        weekday: "WE",
        time: "10:00",
        interval: 2,
      }),
    );
    expect(wallTimes("every-other-month").every((w) => w.slice(5, 7) === "03")).toBe(true);
  });
});
