import type { ZoneRules } from "#lib/calendar/zones";
import { DAY_MS, instantToWall, wallToInstant } from "./time";

/**
 * The RFC 5545 subset the emulator expands, the way `singleEvents=true` turns a recurring
 * event into instances: RRULE with FREQ DAILY, WEEKLY (BYDAY), MONTHLY (the start's day, or
 * BYMONTHDAY) or YEARLY, with INTERVAL, COUNT and UNTIL; EXDATE lines. Instances keep their
 * wall-clock time in the event's zone across DST changes, as Google Calendar shows them.
 */

export interface RecurrenceRule {
  freq: "DAILY" | "WEEKLY" | "MONTHLY" | "YEARLY";
  interval: number;
  count?: number;
  /** Inclusive bound, epoch ms (a date-only UNTIL is the end of that day). */
  until?: number;
  /** Weekdays, 0 = Monday. */
  byDay?: number[];
  byMonthDay?: number[];
}

export interface Recurrence {
  rule: RecurrenceRule;
  /** Excluded instance starts: instants for timed events, day keys for all-day ones. */
  exdates: number[];
}

export class RecurrenceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RecurrenceError";
  }
}

const DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"];

function parseUntil(text: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})Z?)?$/.exec(text);
  if (!m) throw new RecurrenceError(`bad UNTIL ${text}`);
  const day = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (m[4] === undefined) return day + DAY_MS - 1;
  return day + (Number(m[4]) * 3600 + Number(m[5]) * 60 + Number(m[6])) * 1000;
}

function parseRule(text: string): RecurrenceRule {
  const parts = new Map<string, string>();
  for (const p of text.split(";")) {
    const [k, v] = p.split("=");
    if (k && v !== undefined) parts.set(k.toUpperCase(), v.toUpperCase());
  }
  const freq = parts.get("FREQ");
  if (freq !== "DAILY" && freq !== "WEEKLY" && freq !== "MONTHLY" && freq !== "YEARLY") {
    throw new RecurrenceError(`unsupported FREQ ${freq ?? "(none)"}`);
  }
  const interval = Number(parts.get("INTERVAL") ?? "1");
  if (!Number.isInteger(interval) || interval < 1) throw new RecurrenceError("bad INTERVAL");
  const rule: RecurrenceRule = { freq, interval };
  const count = parts.get("COUNT");
  if (count !== undefined) {
    rule.count = Number(count);
    if (!Number.isInteger(rule.count) || rule.count < 1) throw new RecurrenceError("bad COUNT");
  }
  const until = parts.get("UNTIL");
  if (until !== undefined) rule.until = parseUntil(until);
  const byDay = parts.get("BYDAY");
  if (byDay !== undefined) {
    rule.byDay = byDay.split(",").map((d) => {
      const i = DAYS.indexOf(d);
      if (i < 0) throw new RecurrenceError(`unsupported BYDAY ${d}`);
      return i;
    });
  }
  const byMonthDay = parts.get("BYMONTHDAY");
  if (byMonthDay !== undefined) {
    rule.byMonthDay = byMonthDay.split(",").map(Number);
    if (rule.byMonthDay.some((d) => !Number.isInteger(d) || d < 1 || d > 31)) {
      throw new RecurrenceError("bad BYMONTHDAY");
    }
  }
  for (const key of parts.keys()) {
    if (!["FREQ", "INTERVAL", "COUNT", "UNTIL", "BYDAY", "BYMONTHDAY", "WKST"].includes(key)) {
      throw new RecurrenceError(`unsupported rule part ${key}`);
    }
  }
  return rule;
}

/** Parses an event's `recurrence` lines; `zoneOf` reads an EXDATE's TZID. */
export function parseRecurrence(
  lines: string[],
  allDay: boolean,
  zoneOf: (tzid: string | undefined) => ZoneRules,
): Recurrence {
  let rule: RecurrenceRule | undefined;
  const exdates: number[] = [];
  for (const line of lines) {
    const colon = line.indexOf(":");
    const head = line.slice(0, colon < 0 ? line.length : colon).toUpperCase();
    const value = colon < 0 ? "" : line.slice(colon + 1);
    const [name, ...params] = head.split(";");
    if (name === "RRULE") {
      if (rule) throw new RecurrenceError("more than one RRULE");
      rule = parseRule(value);
    } else if (name === "EXDATE") {
      // The zone id keeps its case (the header was upper-cased to find the names).
      const zone = zoneOf(
        params.some((p) => p.startsWith("TZID=")) ? line.match(/TZID=([^;:]+)/i)?.[1] : undefined,
      );
      for (const v of value.split(",")) {
        const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z?))?$/.exec(v.trim());
        if (!m) throw new RecurrenceError(`bad EXDATE ${v}`);
        const day = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
        if (allDay || m[4] === undefined) {
          exdates.push(day);
          continue;
        }
        const wall = day + (Number(m[4]) * 3600 + Number(m[5]) * 60 + Number(m[6])) * 1000;
        exdates.push(m[7] === "Z" ? wall : wallToInstant(wall, zone));
      }
    } else {
      throw new RecurrenceError(`unsupported recurrence line ${name}`);
    }
  }
  if (!rule) throw new RecurrenceError("no RRULE");
  return { rule, exdates };
}

const MAX_STEPS = 200_000;

/** Candidate wall times of one period (a day, a week, a month or a year) of the rule. */
function periodCandidates(rule: RecurrenceRule, wall0: number, k: number): number[] {
  const start = new Date(wall0);
  const timeOfDay =
    wall0 - Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
  const step = k * rule.interval;
  switch (rule.freq) {
    case "DAILY":
      return [wall0 + step * DAY_MS];
    case "WEEKLY": {
      const weekday = (start.getUTCDay() + 6) % 7;
      const weekStart = wall0 - timeOfDay - weekday * DAY_MS + step * 7 * DAY_MS;
      const days = [...(rule.byDay ?? [weekday])].sort((a, b) => a - b);
      return days.map((d) => weekStart + d * DAY_MS + timeOfDay);
    }
    case "MONTHLY":
    case "YEARLY": {
      const months = rule.freq === "MONTHLY" ? step : step * 12;
      const y = start.getUTCFullYear() + Math.floor((start.getUTCMonth() + months) / 12);
      const mo = (start.getUTCMonth() + months) % 12;
      const days = rule.byMonthDay ?? [start.getUTCDate()];
      return days
        .map((d) => Date.UTC(y, mo, d) + timeOfDay)
        .filter((ms) => new Date(ms).getUTCMonth() === mo)
        .sort((a, b) => a - b);
    }
  }
}

/**
 * The instance starts of a series whose first instance starts at `start` (an instant, or a day
 * key when `zone` is undefined), up to `until` (exclusive), at most `limit` of them.
 */
export function expandStarts(
  rec: Recurrence,
  start: number,
  zone: ZoneRules | undefined,
  until: number,
  limit: number,
): number[] {
  const wall0 = zone ? instantToWall(start, zone) : start;
  const toInstant = (wall: number) => (zone ? wallToInstant(wall, zone) : wall);
  const excluded = new Set(rec.exdates);
  const out: number[] = [];
  let generated = 0;
  for (let k = 0; k < MAX_STEPS; k++) {
    for (const wall of periodCandidates(rec.rule, wall0, k)) {
      if (wall < wall0) continue;
      const at = toInstant(wall);
      if (rec.rule.until !== undefined && at > rec.rule.until) return out;
      if (at >= until) return out;
      generated += 1;
      if (rec.rule.count !== undefined && generated > rec.rule.count) return out;
      if (!excluded.has(at)) out.push(at);
      if (out.length >= limit) return out;
    }
  }
  return out;
}
