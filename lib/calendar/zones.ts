import { wallClockFormat } from "#lib/core/zoned-time";

/**
 * Offsets of one zone as a function of the UTC instant. Everything else (wall time → instant,
 * DST gaps and overlaps) is derived from this, so VTIMEZONE and tzdata zones behave the same.
 */
export interface ZoneRules {
  readonly id: string;
  /** Offset from UTC in milliseconds at the given instant. */
  offsetAt(utcMs: number): number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Wall-clock fields (month 1-12) read as if UTC, in epoch ms. Unlike Date.UTC it keeps years
 * 0-99 as they are, which antique VTIMEZONE observances (DTSTART:00010101T...) need.
 */
export function wallMs(y: number, mo: number, d: number, h = 0, mi = 0, s = 0): number {
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  if (y >= 0 && y < 100) {
    const date = new Date(ms);
    date.setUTCFullYear(y);
    return date.getTime();
  }
  return ms;
}

export const UTC_ZONE: ZoneRules = { id: "UTC", offsetAt: () => 0 };

/** A zone that is always the given offset from UTC ("UTC+01:00"): no DST, no history. */
export function fixedOffsetZone(offsetMs: number): ZoneRules {
  if (offsetMs === 0) return UTC_ZONE;
  const sign = offsetMs < 0 ? "-" : "+";
  const minutes = Math.abs(offsetMs) / 60_000;
  const hh = String(Math.floor(minutes / 60)).padStart(2, "0");
  const mm = String(minutes % 60).padStart(2, "0");
  return { id: `UTC${sign}${hh}:${mm}`, offsetAt: () => offsetMs };
}

/**
 * Converts a wall-clock time (its fields read as if UTC) to an instant, per RFC 5545 §3.3.5:
 * a time that occurs twice (DST end) means the first occurrence, and a time inside a DST gap
 * is read with the offset before the gap (so 02:30 on a spring-forward day is 03:30 new time).
 */
export function wallToUtc(wallMs: number, zone: ZoneRules): number {
  const before = zone.offsetAt(wallMs - 14 * HOUR - 2 * HOUR);
  const after = zone.offsetAt(wallMs + 14 * HOUR + 2 * HOUR);
  if (before === after) return wallMs - before;
  if (zone.offsetAt(wallMs - before) === before) return wallMs - before;
  if (zone.offsetAt(wallMs - after) === after) return wallMs - after;
  return wallMs - before;
}

/** The wall-clock fields (as a UTC-read epoch) of an instant in a zone. */
export const utcToWall = (utcMs: number, zone: ZoneRules): number => utcMs + zone.offsetAt(utcMs);

const intlCache = new Map<string, ZoneRules | null>();

/**
 * A zone from the runtime's tzdata (Node's full ICU). It is maintained with Node releases and,
 * unlike a generated VTIMEZONE, knows every historical rule change of the zone.
 */
export function ianaZone(id: string): ZoneRules | undefined {
  const cached = intlCache.get(id);
  if (cached !== undefined) return cached ?? undefined;
  let format: Intl.DateTimeFormat;
  try {
    format = wallClockFormat(id, { era: "short" });
  } catch {
    intlCache.set(id, null);
    return undefined;
  }
  // Offsets are asked for the same few instants again and again (DST probing), so memoise.
  const memo = new Map<number, number>();
  const rules: ZoneRules = {
    id: format.resolvedOptions().timeZone,
    offsetAt(utcMs) {
      const second = Math.floor(utcMs / 1000) * 1000;
      const hit = memo.get(second);
      if (hit !== undefined) return hit;
      const fields: Record<string, number> = {};
      let bc = false;
      for (const part of format.formatToParts(second)) {
        if (part.type === "era") bc = part.value === "BC" || part.value === "B";
        else if (part.type !== "literal") fields[part.type] = Number(part.value);
      }
      const year = bc ? 1 - (fields.year ?? 0) : (fields.year ?? 1970);
      const wall = wallMs(
        year,
        fields.month ?? 1,
        fields.day ?? 1,
        fields.hour ?? 0,
        fields.minute ?? 0,
        fields.second ?? 0,
      );
      const offset = wall - second;
      if (memo.size > 10_000) memo.clear();
      memo.set(second, offset);
      return offset;
    },
  };
  intlCache.set(id, rules);
  return rules;
}

/** Midnight of a calendar date in a zone, as an instant. */
export const zonedMidnight = (year: number, month: number, day: number, zone: ZoneRules): number =>
  wallToUtc(wallMs(year, month, day), zone);

export { DAY as DAY_MS, HOUR as HOUR_MS };
