/** Times and dates for the pages, in the user's zone; a zone Intl does not know reads as UTC. */

import { dayIn } from "./settings-view";

const DEFAULT_LOCALE = "en-GB";

function formatter(
  tz: string,
  locale: string | undefined,
  options: Intl.DateTimeFormatOptions,
): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat(locale ?? DEFAULT_LOCALE, { ...options, timeZone: tz });
  } catch {
    return new Intl.DateTimeFormat(DEFAULT_LOCALE, { ...options, timeZone: "UTC" });
  }
}

/** `14:30` */
export const timeOf = (at: number, tz: string, locale?: string): string =>
  formatter(tz, locale, { hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(at);

/** `Mon, 3 Mar 2025` */
export const dateOf = (at: number, tz: string, locale?: string): string =>
  formatter(tz, locale, {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
  }).format(at);

/** `Mon, 3 Mar 2025, 14:30` */
export const dateTimeOf = (at: number, tz: string, locale?: string): string =>
  `${dateOf(at, tz, locale)}, ${timeOf(at, tz, locale)}`;

/** `2025-03-03`: the day in the zone, as a date input takes it. */
export function isoDateOf(at: number, tz: string): string {
  const parts = formatter(tz, "en-CA", {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${get("year")}-${get("month")}-${get("day")}`;
}

/** Whether `at` is the first instant of its day in `tz`. */
const startsADay = (at: number, tz: string): boolean => dayIn(at, tz).start === at;

const yearOf = (at: number, tz: string): string => isoDateOf(at, tz).slice(0, 4);

/**
 * A period as the person chose it, in their zone and locale, the year only when it is not the
 * year of `now`. Whole days (midnight to midnight in `tz`; the end is exclusive in storage) read
 * from the first to the last day, without times: `Thu 10 – Sat 12 Dec`; any other period keeps
 * its times: `Thu 10 Dec, 09:00–13:00`.
 */
export function periodOf(
  start: number,
  end: number,
  tz: string,
  now: number,
  locale?: string,
): string {
  const wholeDays = end > start && startsADay(start, tz) && startsADay(end, tz);
  const last = wholeDays ? end - 1 : end;
  const thisYear = yearOf(now, tz);
  const otherYear = yearOf(start, tz) !== thisYear || yearOf(last, tz) !== thisYear;
  const options: Intl.DateTimeFormatOptions = {
    weekday: "short",
    day: "numeric",
    month: "short",
    ...(otherYear ? { year: "numeric" } : {}),
    ...(wholeDays ? {} : { hour: "2-digit", minute: "2-digit" }),
  };
  return formatter(tz, locale, options).formatRange(start, last);
}
