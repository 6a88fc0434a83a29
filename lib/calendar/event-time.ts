import ICAL from "ical.js";
import { RfcTimezone } from "./ical-zones";
import type { CalendarWarning } from "./parse";
import type { ZoneResolver } from "./zone-resolver";
import {
  DAY_MS,
  UTC_ZONE,
  utcToWall,
  wallMs,
  wallToUtc,
  type ZoneRules,
  zonedMidnight,
} from "./zones";

/** What one expansion reads every value against. */
export interface Context {
  from: number;
  to: number;
  userZone: ZoneRules;
  floating: RfcTimezone;
  zones: ZoneResolver;
  emails: Set<string>;
  warn(warning: CalendarWarning): void;
}

/** How an instance's end follows from its start. */
export type EndRule =
  | { type: "exact"; ms: number }
  | { type: "nominal"; duration: ICAL.Duration }
  | { type: "days"; days: number };

/**
 * A property's value as text, or undefined. A value that does not fit its declared type
 * (SUMMARY;VALUE=DATE:Lunch) is read as written instead of throwing.
 */
export function textOf(comp: ICAL.Component, name: string): string | undefined {
  const prop = comp.getFirstProperty(name);
  return prop ? textValueOf(prop) : undefined;
}

export function textValueOf(prop: ICAL.Property): string | undefined {
  try {
    const value = prop.getFirstValue();
    if (typeof value === "string") return value;
    if (typeof value === "number") return String(value);
  } catch {
    // Fall through to the raw text below.
  }
  const raw: unknown = (prop.toJSON() as unknown[])[3];
  return typeof raw === "string" ? raw : undefined;
}

export const dateKey = (t: ICAL.Time): string =>
  `${String(t.year).padStart(4, "0")}-${String(t.month).padStart(2, "0")}-${String(t.day).padStart(2, "0")}`;

/**
 * Whether a value as written (jCal: "2025-03-09" or "2025-03-09T10:00:00Z") names a real date;
 * "2025-13-40T25:00:00" does not. ical.js would roll such fields over into another day, so an
 * event would show at a time nobody wrote. Values of another shape are left to ical.js. Read by
 * hand, not by regex: it runs for every date of the feed.
 */
export function isRealDate(raw: unknown): boolean {
  if (typeof raw !== "string" || raw.length < 10 || raw.charCodeAt(4) !== 45) return true;
  const year = digits(raw, 0, 4);
  const month = digits(raw, 5, 2);
  const day = digits(raw, 8, 2);
  if (!(month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month))) return false;
  if (raw.length < 19 || raw.charCodeAt(10) !== 84) return true;
  return digits(raw, 11, 2) <= 23 && digits(raw, 14, 2) <= 59 && digits(raw, 17, 2) <= 60;
}

/** The number written in `length` decimal digits at `at`, or NaN. */
function digits(text: string, at: number, length: number): number {
  let value = 0;
  for (let i = at; i < at + length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (!(d >= 0 && d <= 9)) return Number.NaN;
    value = value * 10 + d;
  }
  return value;
}

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const daysInMonth = (year: number, month: number): number =>
  month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
    ? 29
    : (MONTH_DAYS[month - 1] ?? 31);

/** The values of a property as written (jCal), to check them before ical.js normalises them. */
export const rawValuesOf = (prop: ICAL.Property): unknown[] =>
  (prop.toJSON() as unknown[]).slice(3);

/** Gives a parsed value its zone: its TZID (resolved by us), UTC, or the floating default. */
export function localize(
  value: ICAL.Time,
  prop: ICAL.Property,
  ctx: Context,
  floating: ICAL.Timezone,
): ICAL.Time {
  const t = value.clone();
  if (t.isDate) return t;
  if (value.zone === ICAL.Timezone.utcTimezone) {
    t.zone = ICAL.Timezone.utcTimezone;
    return t;
  }
  const tzid = prop.getParameter("tzid");
  const id = Array.isArray(tzid) ? tzid.join(",") : tzid;
  t.zone = typeof id === "string" && id !== "" ? ctx.zones.resolve(id) : floating;
  return t;
}

/** A date-valued property's time; throws (with the property's name) when it has none. */
export function timeOf(prop: ICAL.Property, ctx: Context, floating: ICAL.Timezone): ICAL.Time {
  const name = prop.name.toUpperCase();
  const raw = rawValuesOf(prop)[0];
  if (!isRealDate(raw)) throw new Error(`${name} ${String(raw)} is not a real date`);
  const value = prop.getFirstValue();
  if (!(value instanceof ICAL.Time)) throw new Error(`${name} is not a date`);
  return localize(value, prop, ctx, floating);
}

/** Instant of a value; DATE values are midnight in the user's zone (all-day dates are theirs). */
export function instantOf(t: ICAL.Time, ctx: Context): number {
  if (t.isDate) return zonedMidnight(t.year, t.month, t.day, ctx.userZone);
  return t.toUnixTime() * 1000;
}

/** The rules a start's wall clock runs on: its zone, the user's for dates, UTC for UTC times. */
export function rulesOf(t: ICAL.Time, ctx: Context): ZoneRules {
  if (t.isDate) return ctx.userZone;
  return t.zone instanceof RfcTimezone ? t.zone.rules : UTC_ZONE;
}

/**
 * How a component's instances end: DTEND, else DURATION, else the RFC defaults (one day for a
 * date, zero length for a time). An unreadable DTEND or DURATION costs only itself (a warning).
 */
export function endRuleOf(
  comp: ICAL.Component,
  start: ICAL.Time,
  ctx: Context,
  uid: string,
): EndRule {
  const dtendProp = comp.getFirstProperty("dtend");
  if (dtendProp) {
    try {
      return endRuleFromDtend(timeOf(dtendProp, ctx, start.zone ?? ctx.floating), start, ctx);
    } catch (error: unknown) {
      ctx.warn({ uid, message: `ignored DTEND: ${errorLine(error)}` });
    }
  }
  const durationProp = comp.getFirstProperty("duration");
  if (durationProp) {
    try {
      const duration = durationProp.getFirstValue();
      if (!(duration instanceof ICAL.Duration)) throw new Error("DURATION is not a duration");
      if (start.isDate) {
        return { type: "days", days: Math.max(1, Math.ceil(duration.toSeconds() / 86_400)) };
      }
      return { type: "nominal", duration };
    } catch (error: unknown) {
      ctx.warn({ uid, message: `ignored DURATION: ${errorLine(error)}` });
    }
  }
  return start.isDate ? { type: "days", days: 1 } : { type: "exact", ms: 0 };
}

const errorLine = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "unreadable";

function endRuleFromDtend(end: ICAL.Time, start: ICAL.Time, ctx: Context): EndRule {
  if (start.isDate && end.isDate) {
    const days = Math.round(
      (wallMs(end.year, end.month, end.day) - wallMs(start.year, start.month, start.day)) / DAY_MS,
    );
    // DTEND equal to (or, swapped, before) DTSTART still means that one day.
    return { type: "days", days: Math.max(1, Math.abs(days)) };
  }
  return { type: "exact", ms: exactLength(start, end, ctx) };
}

/**
 * Milliseconds from DTSTART to DTEND. A DTSTART inside a DST gap is read with the offset before
 * the gap (RFC 5545 §3.3.5), which moves it forward by the gap, while a DTEND after the gap stays
 * where it is: 02:30–03:30 on a spring-forward night would become 03:30–03:30 and vanish, and
 * 02:30–03:15 would end before it starts. There the wall-clock length is kept instead
 * (03:30–04:30 and 03:30–04:15), so the meeting still shows, for as long as it was planned.
 */
function exactLength(start: ICAL.Time, end: ICAL.Time, ctx: Context): number {
  const length = instantOf(end, ctx) - instantOf(start, ctx);
  if (start.isDate || end.isDate || end.zone !== start.zone || !inDstGap(start)) return length;
  const wall = (t: ICAL.Time) => wallMs(t.year, t.month, t.day, t.hour, t.minute, t.second);
  const wallLength = wall(end) - wall(start);
  return Math.max(wallLength, length);
}

/** Whether a zoned wall time is skipped by its zone (it never shows on a clock there). */
function inDstGap(t: ICAL.Time): boolean {
  if (!(t.zone instanceof RfcTimezone)) return false;
  const wall = wallMs(t.year, t.month, t.day, t.hour, t.minute, t.second);
  return utcToWall(wallToUtc(wall, t.zone.rules), t.zone.rules) !== wall;
}

/** [start, end] of an instance, swapped if the producer wrote them the wrong way round. */
export function spanOf(start: ICAL.Time, rule: EndRule, ctx: Context): [number, number] {
  const s = instantOf(start, ctx);
  return ordered(s, endAfter(s, rule, rulesOf(start, ctx)));
}

/**
 * The end of an instance starting at instant `start`, with days and weeks counted on the wall
 * clock of `rules` (nominal, RFC 5545 §3.3.6) and hours, minutes and seconds exactly.
 */
export function endAfter(start: number, rule: EndRule, rules: ZoneRules): number {
  if (rule.type === "exact") return start + rule.ms;
  const plusDays = (days: number) => wallToUtc(utcToWall(start, rules) + days * DAY_MS, rules);
  if (rule.type === "days") return plusDays(rule.days);
  const dur = rule.duration;
  const sign = dur.isNegative ? -1 : 1;
  const exact = sign * (dur.hours * 3600 + dur.minutes * 60 + dur.seconds) * 1000;
  return plusDays(sign * (dur.weeks * 7 + dur.days)) + exact;
}

const ordered = (s: number, e: number): [number, number] => (e < s ? [e, s] : [s, e]);

/** Half-open overlap with [from, to); an empty window [t, t] asks "what is on at instant t". */
export const overlaps = (start: number, end: number, ctx: Context): boolean => {
  if (ctx.from === ctx.to) {
    return start === end ? start === ctx.from : start <= ctx.from && end > ctx.from;
  }
  return start === end ? start >= ctx.from && start < ctx.to : start < ctx.to && end > ctx.from;
};
