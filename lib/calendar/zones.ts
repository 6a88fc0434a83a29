import ICAL from "ical.js";
import { findIana } from "windows-iana";
import { InvalidEventError, UnknownTimeZoneError } from "./errors";

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
    format = new Intl.DateTimeFormat("en-US", {
      timeZone: id,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      era: "short",
    });
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

interface IcalChange {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  utcOffset: number;
  prevUtcOffset: number;
}
/** The parts of ical.js's Timezone that are not in its type declarations. */
interface IcalTimezoneInternals {
  changes: IcalChange[];
  _ensureCoverage(year: number): void;
}

/**
 * A zone defined by a VTIMEZONE of the feed. ical.js expands the observances (including
 * year-0001 starts and many eras); we only read its transition list, stored in UTC.
 */
export function vtimezoneZone(component: ICAL.Component, id: string): ZoneRules {
  const inner = new ICAL.Timezone({ component, tzid: id }) as unknown as IcalTimezoneInternals;
  let coveredYear = Number.NEGATIVE_INFINITY;
  let instants: number[] = [];
  const ensure = (year: number) => {
    if (year <= coveredYear) return;
    inner._ensureCoverage(year + 1);
    coveredYear = year + 1;
    instants = inner.changes.map((c) => wallMs(c.year, c.month, c.day, c.hour, c.minute, c.second));
  };
  return {
    id,
    offsetAt(utcMs) {
      ensure(new Date(utcMs).getUTCFullYear());
      const changes = inner.changes;
      if (changes.length === 0) return 0;
      let lo = 0;
      let hi = instants.length - 1;
      let found = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        if ((instants[mid] ?? 0) <= utcMs) {
          found = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      const change = found >= 0 ? changes[found] : changes[0];
      if (!change) return 0;
      return (found >= 0 ? change.utcOffset : change.prevUtcOffset) * 1000;
    },
  };
}

/** An ical.js Timezone whose wall-time arithmetic follows RFC 5545 via `wallToUtc`. */
export class RfcTimezone extends ICAL.Timezone {
  constructor(readonly rules: ZoneRules) {
    super({ tzid: rules.id });
  }
  override utcOffset(tt: ICAL.Time): number {
    const wall = wallMs(tt.year, tt.month, tt.day, tt.hour, tt.minute, tt.second);
    return (wall - wallToUtc(wall, this.rules)) / 1000;
  }
}

/** Strips the decorations producers put around zone ids: quotes, trailing colons, spaces. */
export const cleanTzid = (raw: string): string =>
  raw
    .trim()
    .replace(/^"+|"+$/g, "")
    .replace(/:+$/, "")
    .trim();

/** Resolves an IANA id, a Windows zone name (CLDR windowsZones) or a prefixed IANA path. */
export function globalZone(raw: string): ZoneRules | undefined {
  const id = cleanTzid(raw);
  if (id === "") return undefined;
  if (/^(utc|gmt|z)$/i.test(id)) return UTC_ZONE;
  // Windows names first: "Pacific Standard Time" is not an IANA id, but "UTC" is both.
  const windows = safeFindIana(id);
  if (windows) return ianaZone(windows);
  const direct = ianaZone(id);
  if (direct) return direct;
  // Producers such as Mozilla and libical prefix ids: "/mozilla.org/20050126_1/Europe/Berlin".
  const parts = id.split("/").filter((p) => p !== "");
  for (let i = 1; i < parts.length - 1; i++) {
    const candidate = ianaZone(parts.slice(i).join("/"));
    if (candidate) return candidate;
  }
  return undefined;
}

function safeFindIana(name: string): string | undefined {
  try {
    return findIana(name)[0];
  } catch {
    return undefined;
  }
}

/** Per-feed resolver: the feed's own VTIMEZONEs win, then tzdata, then the Windows mapping. */
export class ZoneResolver {
  private readonly cache = new Map<string, RfcTimezone | null>();
  private readonly definitions = new Map<string, ICAL.Component>();

  constructor(root: ICAL.Component | undefined) {
    for (const vtz of root?.getAllSubcomponents("vtimezone") ?? []) {
      // A TZID that is not text (TZID;VALUE=DATE:...) names nothing; its events are skipped.
      const tzid: unknown = vtz.getFirstProperty("tzid")?.toJSON()[3];
      if (typeof tzid === "string") {
        this.definitions.set(tzid, vtz);
        if (!this.definitions.has(cleanTzid(tzid))) this.definitions.set(cleanTzid(tzid), vtz);
      }
    }
  }

  /** Returns the zone, or throws UnknownTimeZoneError: an unknown id is never read as floating. */
  resolve(tzid: string): RfcTimezone {
    const hit = this.cache.get(tzid);
    if (hit) return hit;
    if (hit === null) throw new UnknownTimeZoneError(tzid);
    const definition = this.definitions.get(tzid) ?? this.definitions.get(cleanTzid(tzid));
    let rules: ZoneRules | undefined;
    let problem: string | undefined;
    if (definition && hasObservances(definition)) {
      problem = observanceProblem(definition);
      if (!problem) rules = vtimezoneZone(definition, tzid);
    }
    // A broken definition of a zone that tzdata knows loses nothing: tzdata has the rules.
    rules ??= globalZone(tzid);
    if (!rules) {
      if (problem) throw new InvalidEventError(`time zone "${tzid}": ${problem}`);
      this.cache.set(tzid, null);
      throw new UnknownTimeZoneError(tzid);
    }
    const zone = new RfcTimezone(rules);
    this.cache.set(tzid, zone);
    return zone;
  }
}

const SUB_DAILY = new Set(["SECONDLY", "MINUTELY", "HOURLY"]);

/**
 * Why a VTIMEZONE cannot be used, if it cannot. ical.js expands every observance from its
 * DTSTART up to the year asked for, so a rule changing the offset every second since 1970 would
 * run for billions of steps; real zones change it a few times a year.
 */
function observanceProblem(vtz: ICAL.Component): string | undefined {
  for (const observance of vtz.getAllSubcomponents()) {
    for (const prop of observance.getAllProperties("rrule")) {
      for (const rule of prop.getValues()) {
        if (rule instanceof ICAL.Recur && rule.freq && SUB_DAILY.has(rule.freq)) {
          return `observance repeats ${rule.freq}, more often than any offset changes`;
        }
      }
    }
  }
  return undefined;
}

const hasObservances = (vtz: ICAL.Component): boolean =>
  vtz.getAllSubcomponents("standard").length + vtz.getAllSubcomponents("daylight").length > 0;

/** Midnight of a calendar date in a zone, as an instant. */
export const zonedMidnight = (year: number, month: number, day: number, zone: ZoneRules): number =>
  wallToUtc(wallMs(year, month, day), zone);

export { DAY as DAY_MS, HOUR as HOUR_MS };
