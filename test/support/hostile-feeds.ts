/**
 * Feeds built to explode, as an attacker would write them: small files whose rules ask for
 * millions of occurrences, or for millions of steps before the window. Real iCalendar text.
 */

const DAY = 86_400_000;
const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]|\.\d{3}/g, "");

export interface HostileFeedOptions {
  /** Instant the sync's window starts around: the series start a day before it. */
  around: number;
  /** Unbounded MINUTELY series starting in the window (each would have ~27,000 instances). */
  minutely?: number;
  /** Unbounded SECONDLY series from years back (each would step 100,000 times for nothing). */
  secondly?: number;
  /** MINUTELY series with a COUNT in the millions. */
  counted?: number;
  /** EXDATEs on each counted series (a deep list to read). */
  exdates?: number;
  /** Overrides (RECURRENCE-ID) of the first SECONDLY series: each asks for its iteration again. */
  overrides?: number;
}

/** A feed of many unbounded MINUTELY and SECONDLY rules, large COUNTs and deep EXDATE lists. */
export function hostileFeed(opts: HostileFeedOptions): string {
  const start = opts.around - DAY;
  const longAgo = Date.UTC(2015, 0, 1);
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//attacker//explode//EN"];
  const event = (uid: string, at: number, rule: string, extra: string[] = []) =>
    lines.push(
      "BEGIN:VEVENT",
      `UID:${uid}`,
      "DTSTAMP:20260101T000000Z",
      `DTSTART:${stamp(at)}`,
      `DTEND:${stamp(at + 30_000)}`,
      `RRULE:${rule}`,
      ...extra,
      `SUMMARY:${uid}`,
      "END:VEVENT",
    );
  for (let i = 0; i < (opts.secondly ?? 0); i++) {
    event(`secondly-${i}@attacker`, longAgo + i * 1000, "FREQ=SECONDLY");
  }
  for (let i = 0; i < (opts.overrides ?? 0); i++) {
    const rid = stamp(longAgo + (i + 1) * 1000);
    lines.push(
      "BEGIN:VEVENT",
      "UID:secondly-0@attacker",
      "DTSTAMP:20260101T000000Z",
      `RECURRENCE-ID:${rid}`,
      `DTSTART:${stamp(opts.around + i * 60_000)}`,
      `DTEND:${stamp(opts.around + i * 60_000 + 30_000)}`,
      "SUMMARY:moved",
      "END:VEVENT",
    );
  }
  for (let i = 0; i < (opts.counted ?? 0); i++) {
    const exdates = Array.from({ length: opts.exdates ?? 0 }, (_, k) =>
      stamp(start + (2 * k + 1) * 60_000 + i * 1000),
    );
    event(
      `counted-${i}@attacker`,
      start + i * 1000,
      "FREQ=MINUTELY;COUNT=5000000",
      exdates.length > 0 ? [`EXDATE:${exdates.join(",")}`] : [],
    );
  }
  for (let i = 0; i < (opts.minutely ?? 0); i++) {
    event(`minutely-${i}@attacker`, start + i * 1000, "FREQ=MINUTELY");
  }
  lines.push("END:VCALENDAR", "");
  return lines.join("\r\n");
}
