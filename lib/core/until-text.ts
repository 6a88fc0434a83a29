import { truncateText } from "./text";

/**
 * The "until" a status of a kind that says when it ends (out of office) gets, in the user's zone
 * and locale.
 */

/** The wall-clock parts of an instant in a zone (falls back to UTC for an unknown zone). */
export function wallClock(
  ms: number,
  tz: string,
): { date: string; hour: number; minute: number; second: number } {
  let parts: Intl.DateTimeFormatPart[];
  const options: Intl.DateTimeFormatOptions = {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  };
  try {
    parts = new Intl.DateTimeFormat("en-GB", { ...options, timeZone: tz }).formatToParts(ms);
  } catch {
    parts = new Intl.DateTimeFormat("en-GB", { ...options, timeZone: "UTC" }).formatToParts(ms);
  }
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value;
  return {
    date: `${get("year")}-${get("month")}-${get("day")}`,
    hour: Number(get("hour")),
    minute: Number(get("minute")),
    second: Number(get("second")),
  };
}

const validZone = (tz: string): string => {
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone: tz });
    return tz;
  } catch {
    return "UTC";
  }
};

/**
 * The "until" of an out-of-office, in the user's zone and locale. The end is exclusive.
 * - Ends at local midnight (a whole-day absence): the last day out, so a leave ending Saturday
 *   00:00 reads "Out of office until Fri, 27 Nov". This is the common convention of calendar
 *   auto-replies ("back on Monday" is the other one; we name the last day away).
 * - Ends at any other time on the day it is shown (`now`, in the user's zone): the time only,
 *   "Out of office until 15:30".
 * - Otherwise the day and time: "Out of office until Mon, 10 Mar 15:30".
 * Without `now` the same-day form is never chosen (backward compatible callers).
 */
export function outOfOfficeText(
  base: string,
  endMs: number,
  tz: string,
  locale?: string,
  now?: number,
): string {
  const zone = validZone(tz);
  const end = wallClock(endMs, zone);
  if (end.hour === 0 && end.minute === 0 && end.second === 0) {
    return truncateText(`${base} until ${formatDate(endMs - 1, zone, locale)}`);
  }
  const time = formatTime(endMs, zone, locale);
  if (now !== undefined && wallClock(now, zone).date === end.date) {
    return truncateText(`${base} until ${time}`);
  }
  return truncateText(`${base} until ${formatDate(endMs, zone, locale)} ${time}`);
}

function formatTime(ms: number, tz: string, locale?: string): string {
  return new Intl.DateTimeFormat(locale ?? "en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    timeZone: tz,
    ...(locale ? {} : { hourCycle: "h23" as const }),
  }).format(ms);
}

function formatDate(ms: number, tz: string, locale?: string): string {
  if (locale) {
    return new Intl.DateTimeFormat(locale, {
      weekday: "short",
      day: "numeric",
      month: "short",
      timeZone: tz,
    }).format(ms);
  }
  const parts = new Intl.DateTimeFormat("en-GB", {
    weekday: "short",
    day: "numeric",
    month: "short",
    timeZone: tz,
  }).formatToParts(ms);
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value;
  return `${get("weekday")}, ${get("day")} ${get("month")}`;
}
