/**
 * Wall-clock time in an IANA zone, from the runtime's tzdata (Intl), without the calendar
 * engine: what the /ooo command and the API providers' all-day events need. An unknown zone
 * counts as UTC.
 */

/**
 * Formats instants as `zone`'s numeric wall-clock fields (year to second, 24-hour), plus any
 * `extra` fields; throws a RangeError for a zone the runtime does not know.
 */
export const wallClockFormat = (
  zone: string,
  extra: Intl.DateTimeFormatOptions = {},
): Intl.DateTimeFormat =>
  new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
    ...extra,
  });

/**
 * One formatter per zone (null: the runtime does not know it). Building an Intl.DateTimeFormat
 * costs far more than formatting with one, and a provider's page maps many all-day events.
 */
const formatters = new Map<string, Intl.DateTimeFormat | null>();
const MAX_FORMATTERS = 500;

function formatterOf(zone: string): Intl.DateTimeFormat | null {
  let format = formatters.get(zone);
  if (format !== undefined) return format;
  try {
    format = wallClockFormat(zone);
  } catch {
    format = null;
  }
  // Zone names can come from calendar data: keep the map bounded.
  if (formatters.size >= MAX_FORMATTERS) formatters.clear();
  formatters.set(zone, format);
  return format;
}

/** Offset of `zone` from UTC at `utcMs`, in ms (positive east of Greenwich). */
export function zoneOffsetMs(utcMs: number, zone: string): number {
  const format = formatterOf(zone);
  if (format === null) return 0;
  const parts = format.formatToParts(utcMs);
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  const asUtc = Date.UTC(
    get("year"),
    get("month") - 1,
    get("day"),
    get("hour"),
    get("minute"),
    get("second"),
  );
  return asUtc - Math.floor(utcMs / 1000) * 1000;
}

/** The instant at which the wall clock in `zone` reads the given local time. */
export function zonedToEpoch(
  local: { y: number; m: number; d: number; hh: number; mm: number },
  zone: string,
): number {
  const wall = Date.UTC(local.y, local.m - 1, local.d, local.hh, local.mm);
  const first = wall - zoneOffsetMs(wall, zone);
  // A second pass settles instants near a DST change, where the first guess used the other offset.
  return wall - zoneOffsetMs(first, zone);
}
