/**
 * Wall-clock time in an IANA zone, from the runtime's tzdata (Intl), without the calendar
 * engine: what the /ooo command and the API providers' all-day events need. An unknown zone
 * counts as UTC.
 */

/** Offset of `zone` from UTC at `utcMs`, in ms (positive east of Greenwich). */
export function zoneOffsetMs(utcMs: number, zone: string): number {
  let parts: Intl.DateTimeFormatPart[];
  try {
    parts = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    }).formatToParts(utcMs);
  } catch {
    return 0;
  }
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
