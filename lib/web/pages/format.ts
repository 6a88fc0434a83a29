/** Times and dates for the pages, in the user's zone; a zone Intl does not know reads as UTC. */

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
