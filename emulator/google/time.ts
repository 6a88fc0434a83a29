import { ianaZone, UTC_ZONE, utcToWall, wallToUtc, type ZoneRules } from "#lib/calendar/zones";

/**
 * Times as the Calendar API writes them: RFC 3339 `dateTime` values with an offset, `date`
 * values (`yyyy-mm-dd`) for all-day events, and the compact forms inside instance ids.
 */

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** An RFC 3339 timestamp with a mandatory offset, as epoch ms; undefined when malformed. */
export function parseRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, off] = m;
  const ms = Date.UTC(+(y ?? 0), +(mo ?? 1) - 1, +(d ?? 1), +(h ?? 0), +(mi ?? 0), +(s ?? 0));
  const fraction = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  if (Number.isNaN(ms)) return undefined;
  let offsetMs = 0;
  if (off && off.toUpperCase() !== "Z") {
    const sign = off.startsWith("-") ? -1 : 1;
    offsetMs = sign * (Number(off.slice(1, 3)) * 60 + Number(off.slice(4, 6))) * 60_000;
  }
  return ms + fraction - offsetMs;
}

/** A `yyyy-mm-dd` date as the epoch ms of its UTC midnight (a day key), or undefined. */
export function parseDate(text: string): number | undefined {
  const m = DATE.exec(text);
  if (!m) return undefined;
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  const back = new Date(ms).toISOString().slice(0, 10);
  return back === text ? ms : undefined;
}

/** The zone's rules, UTC for an unknown id. */
export const zoneRules = (id: string | undefined): ZoneRules =>
  (id ? ianaZone(id) : undefined) ?? UTC_ZONE;

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, "0");

/** `2025-03-03T10:00:00+01:00`: the instant written in the zone, as Google writes dateTime. */
export function formatInZone(utcMs: number, zone: ZoneRules): string {
  const offsetMin = Math.round(zone.offsetAt(utcMs) / 60_000);
  const wall = new Date(utcToWall(utcMs, zone)).toISOString().slice(0, 19);
  if (offsetMin === 0) return `${wall}Z`;
  const sign = offsetMin < 0 ? "-" : "+";
  return `${wall}${sign}${pad(Math.floor(Math.abs(offsetMin) / 60))}:${pad(Math.abs(offsetMin) % 60)}`;
}

/** `2025-03-03T09:00:00.000Z`: timestamps such as `created` and `updated`. */
export const isoUtc = (ms: number): string => new Date(ms).toISOString();

/** The day key (UTC midnight ms) written `yyyy-mm-dd`. */
export const formatDate = (dayMs: number): string => new Date(dayMs).toISOString().slice(0, 10);

/** Instance id suffix of a timed instance: `20250303T090000Z` (UTC). */
export const compactUtc = (ms: number): string =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

/** Instance id suffix of an all-day instance: `20250303`. */
export const compactDate = (dayMs: number): string => formatDate(dayMs).replace(/-/g, "");

/** Wall-clock fields in a zone → instant (DST gaps and overlaps per RFC 5545). */
export const wallToInstant = (wallMs: number, zone: ZoneRules): number => wallToUtc(wallMs, zone);
export const instantToWall = (utcMs: number, zone: ZoneRules): number => utcToWall(utcMs, zone);

export const DAY_MS = 86_400_000;
