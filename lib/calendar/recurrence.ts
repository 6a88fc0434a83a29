import ICAL from "ical.js";
import { InvalidEventError } from "./errors";
import {
  type Context,
  dateKey,
  type EndRule,
  instantOf,
  isRealDate,
  localize,
  rawValuesOf,
  spanOf,
} from "./event-time";
import { oneLine } from "./parse";
import { letStopThrough, type Work, type WorkMeter } from "./work-budget";
import { DAY_MS, wallMs } from "./zones";

/** A rule that still yields nothing after this many steps is abandoned (reported, not thrown). */
const MAX_STEPS = 100_000;
const WEEKDAYS = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"] as const;

export interface Instance {
  time: ICAL.Time;
  /** Explicit end of a PERIOD-valued RDATE. */
  end?: number;
}

export interface InstanceSet {
  instances: Instance[];
  /** EXDATE instants (timed series) and dates (all-day series, or DATE-valued EXDATEs). */
  exInstants: Set<number>;
  exDates: Set<string>;
}

/**
 * The recurrence set (RRULEs ∪ RDATEs ∪ DTSTART) near the window, and the EXDATEs. `slackMs`
 * widens the window for instances that overrides move into it. An unreadable RDATE or EXDATE
 * value costs only itself (a warning). At most `meter.limits.eventOccurrences` instances are
 * kept, the earliest of each rule first; every step counts against the feed's budget.
 */
export function* instancesOf(
  comp: ICAL.Component,
  dtstart: ICAL.Time,
  endRule: EndRule,
  slackMs: number,
  ctx: Context,
  uid: string,
  meter: WorkMeter,
): Work<InstanceSet> {
  const [s0, e0] = spanOf(dtstart, endRule, ctx);
  const lo = ctx.from - (e0 - s0) - 2 * DAY_MS - slackMs;
  const hi = ctx.to + 2 * DAY_MS + slackMs;
  const found = new Map<string, Instance>();
  const cap = meter.limits.eventOccurrences;
  const add = (inst: Instance) => {
    const key = inst.time.isDate ? dateKey(inst.time) : String(instantOf(inst.time, ctx));
    if (found.has(key)) return;
    if (found.size >= cap) meter.capEvent();
    else found.set(key, inst);
  };

  // An empty "RRULE:" (calendarlabs feeds) has no FREQ and means no rule at all.
  const rrules = comp
    .getAllProperties("rrule")
    .flatMap((prop) => prop.getValues())
    .filter((value): value is ICAL.Recur => value instanceof ICAL.Recur && Boolean(value.freq));
  if (rrules.length === 0) add({ time: dtstart });
  for (const value of rrules) {
    checkRule(value, dtstart);
    const rule = normaliseUntil(value, dtstart);
    if (rule.until && instantOf(rule.until, ctx) < instantOf(dtstart, ctx)) continue;
    const room = { lo, hi, max: cap - found.size };
    for (const time of yield* ruleInstances(rule, value, dtstart, room, ctx, meter)) add({ time });
    if (meter.step()) yield;
  }

  const masterZone = dtstart.zone ?? ctx.floating;
  const set: InstanceSet = { instances: [], exInstants: new Set(), exDates: new Set() };
  eachDateValue(comp, "rdate", ctx, uid, meter, (value, prop) => {
    if (value instanceof ICAL.Time) {
      add({ time: matchDateness(localize(value, prop, ctx, masterZone), dtstart) });
    } else if (value instanceof ICAL.Period) {
      const start = localize(value.start, prop, ctx, masterZone);
      const end = value.end
        ? instantOf(localize(value.end, prop, ctx, masterZone), ctx)
        : value.duration
          ? instantOf(start, ctx) + value.duration.toSeconds() * 1000
          : undefined;
      add({ time: start, end });
    }
  });
  if (meter.step()) yield;
  eachDateValue(comp, "exdate", ctx, uid, meter, (value, prop) => {
    if (!(value instanceof ICAL.Time)) return;
    const t = localize(value, prop, ctx, masterZone);
    // A DATE EXDATE removes every instance on that date; all-day series match by date.
    if (t.isDate || dtstart.isDate) set.exDates.add(dateKey(t));
    else set.exInstants.add(instantOf(t, ctx));
  });
  set.instances = [...found.values()].sort(
    (a, b) => instantOf(a.time, ctx) - instantOf(b.time, ctx),
  );
  return set;
}

/** Calls `use` for each readable value of each `name` property; skips the rest with a warning. */
function eachDateValue(
  comp: ICAL.Component,
  name: "rdate" | "exdate",
  ctx: Context,
  uid: string,
  meter: WorkMeter,
  use: (value: unknown, prop: ICAL.Property) => void,
): void {
  for (const prop of comp.getAllProperties(name)) {
    try {
      const raw = rawValuesOf(prop);
      const values = prop.getValues();
      values.forEach((value, i) => {
        meter.step();
        const written = raw[i];
        const parts = typeof written === "string" ? written.split("/") : [written];
        if (parts.every(isRealDate)) use(value, prop);
        else ctx.warn({ uid, message: `ignored ${name.toUpperCase()} ${String(written)}` });
      });
    } catch (error: unknown) {
      letStopThrough(error);
      ctx.warn({ uid, message: `ignored ${name.toUpperCase()}: ${oneLine(error)}` });
    }
  }
}

/**
 * The instances of one rule between `lo` and `hi` (ms), as ical.js iterates them: the first
 * `max` of them (the event's cap is noted when there are more).
 */
function* ruleInstances(
  rule: ICAL.Recur,
  written: ICAL.Recur,
  dtstart: ICAL.Time,
  { lo, hi, max }: { lo: number; hi: number; max: number },
  ctx: Context,
  meter: WorkMeter,
): Work<ICAL.Time[]> {
  // ical.js mishandles BYMONTH in MONTHLY rules: it yields an instance in the start month even
  // when BYMONTH excludes it, and loses the one of the next BYMONTH month (BYMONTH=3,6;BYDAY=3WE
  // from January yields January and June, not March and June); with INTERVAL it yields months
  // out of phase. BYMONTH only filters whole months there (RFC 5545 §3.3.10), so the rule is
  // iterated without it and the months are filtered here, counting COUNT after the filter.
  const months = rule.freq === "MONTHLY" ? rule.parts.BYMONTH : undefined;
  let count = Number.POSITIVE_INFINITY;
  let iterated = rule;
  if (months?.length) {
    iterated = rule.clone();
    iterated.parts = { ...rule.parts };
    delete iterated.parts.BYMONTH;
    if (!iterated.parts.BYDAY?.length && !iterated.parts.BYMONTHDAY?.length) {
      iterated.parts.BYMONTHDAY = [dtstart.day];
    }
    if (typeof rule.count === "number") {
      count = rule.count;
      iterated.count = null;
    }
  }
  const ff = Number.isFinite(count) ? undefined : fastForward(iterated, dtstart, lo);
  const iterator = (ff?.rule ?? iterated).iterator(ff?.start ?? dtstart);
  const out: ICAL.Time[] = [];
  let kept = 0;
  for (let step = 0; kept < count; step++) {
    if (step > MAX_STEPS) {
      throw new InvalidEventError(`RRULE ${written.toString()} yields too many instances`);
    }
    if (meter.step()) yield;
    const next = nextOf(iterator, written);
    if (!next) break;
    if (months?.length && !months.includes(next.month)) continue;
    kept++;
    const ms = instantOf(next, ctx);
    if (ms > hi) break;
    if (ms >= lo) {
      if (out.length >= max) {
        meter.capEvent();
        break;
      }
      out.push(next.clone());
    }
  }
  return out;
}

const SUB_DAILY = new Set(["SECONDLY", "MINUTELY", "HOURLY"]);

/** Refuses rules whose recurrence set is undefined, before ical.js loops or throws on them. */
function checkRule(rule: ICAL.Recur, dtstart: ICAL.Time): void {
  const text = rule.toString();
  if (!(rule.interval >= 1)) {
    throw new InvalidEventError(`RRULE ${text}: INTERVAL must be a positive integer`);
  }
  if (typeof rule.count === "number" && !(rule.count >= 1)) {
    throw new InvalidEventError(`RRULE ${text}: COUNT must be a positive integer`);
  }
  // A date has no time of day, so it cannot repeat every few seconds, minutes or hours.
  if (dtstart.isDate && rule.freq && SUB_DAILY.has(rule.freq)) {
    throw new InvalidEventError(`RRULE ${text} cannot repeat an all-day event`);
  }
}

/** The iterator's next instance; its own protections (a rule stuck on one instant) name the rule. */
function nextOf(iterator: ICAL.RecurIterator, rule: ICAL.Recur): ICAL.Time | null {
  try {
    return iterator.next();
  } catch (error: unknown) {
    throw new InvalidEventError(`RRULE ${rule.toString()}: ${oneLine(error)}`, { cause: error });
  }
}

/** An RDATE written as DATE-TIME in an all-day series stands for its date, and vice versa. */
function matchDateness(t: ICAL.Time, dtstart: ICAL.Time): ICAL.Time {
  if (dtstart.isDate && !t.isDate) {
    const d = t.clone();
    d.isDate = true;
    return d;
  }
  return t;
}

/**
 * UNTIL in local form is read in DTSTART's zone, and a DATE UNTIL of a timed series means the
 * end of that day (RFC 5545 requires UTC there, but producers write both). Either is then
 * written as the UTC instant it stands for: ical.js clones a rule through its text, where a
 * zoned UNTIL comes back floating and would be compared as if it were UTC, hours off.
 */
function normaliseUntil(rule: ICAL.Recur, dtstart: ICAL.Time): ICAL.Recur {
  const until = rule.until;
  const zone = dtstart.zone;
  if (!until || dtstart.isDate || !zone || until.zone === ICAL.Timezone.utcTimezone) return rule;
  const local = until.isDate
    ? new ICAL.Time(
        { year: until.year, month: until.month, day: until.day, hour: 23, minute: 59, second: 59 },
        zone,
      )
    : until.clone();
  local.zone = zone;
  const copy = rule.clone();
  copy.until = ICAL.Time.fromJSDate(new Date(local.toUnixTime() * 1000), true);
  return copy;
}

/**
 * Moves an unbounded rule's start forward by whole periods (a multiple of INTERVAL), so a
 * weekly meeting from 2015 costs a few iterations, not ten years of them. The implicit BY-parts
 * that RFC 5545 takes from DTSTART are written out first, so the set after the new start is
 * unchanged. COUNT rules are never moved: their count must start at DTSTART.
 */
function fastForward(
  rule: ICAL.Recur,
  dtstart: ICAL.Time,
  loMs: number,
): { rule: ICAL.Recur; start: ICAL.Time } | undefined {
  if (rule.count) return undefined;
  const interval = rule.interval > 0 ? rule.interval : 1;
  // Wall time of the lower bound, with a day of slack for any UTC offset.
  const low = new Date(loMs - DAY_MS);
  const ly = low.getUTCFullYear();
  const lm = low.getUTCMonth() + 1;
  const startWall = wallMs(dtstart.year, dtstart.month, dtstart.day);
  const days = Math.floor((low.getTime() - startWall) / DAY_MS);
  if (days < 14) return undefined;
  const parts = rule.parts;
  const dayParts = Boolean(
    parts.BYDAY?.length ||
      parts.BYMONTHDAY?.length ||
      parts.BYYEARDAY?.length ||
      parts.BYWEEKNO?.length,
  );
  const copy = rule.clone();
  copy.parts = { ...parts };
  const start = dtstart.clone();
  switch (rule.freq) {
    case "DAILY": {
      const n = (Math.floor(days / interval) - 1) * interval;
      if (n <= 0) return undefined;
      start.adjust(n, 0, 0, 0);
      break;
    }
    case "WEEKLY": {
      const n = (Math.floor(Math.floor(days / 7) / interval) - 1) * interval;
      if (n <= 0) return undefined;
      if (!parts.BYDAY?.length) copy.parts.BYDAY = [WEEKDAYS[dtstart.dayOfWeek() - 1] ?? "MO"];
      start.adjust(7 * n, 0, 0, 0);
      break;
    }
    case "MONTHLY": {
      const months = ly * 12 + lm - (dtstart.year * 12 + dtstart.month);
      const n = (Math.floor(months / interval) - 1) * interval;
      if (n <= 0) return undefined;
      if (!dayParts) copy.parts.BYMONTHDAY = [dtstart.day];
      const index = dtstart.year * 12 + (dtstart.month - 1) + n;
      start.year = Math.floor(index / 12);
      start.month = (index % 12) + 1;
      start.day = 1;
      break;
    }
    case "YEARLY": {
      if (parts.BYWEEKNO?.length && !parts.BYDAY?.length) return undefined;
      const n = (Math.floor((ly - dtstart.year) / interval) - 1) * interval;
      if (n <= 0) return undefined;
      if (!dayParts) {
        copy.parts.BYMONTHDAY = [dtstart.day];
        if (!parts.BYMONTH?.length) copy.parts.BYMONTH = [dtstart.month];
      }
      start.year = dtstart.year + n;
      start.month = 1;
      start.day = 1;
      break;
    }
    default:
      return undefined;
  }
  return { rule: copy, start };
}
