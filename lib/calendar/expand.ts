import ICAL from "ical.js";
import type { Occurrence } from "../core/types";
import { InvalidEventError, InvalidWindowError, UnknownTimeZoneError } from "./errors";
import { oneLine, parseFeed, type SkippedEvent } from "./parse";
import {
  DAY_MS,
  globalZone,
  RfcTimezone,
  utcToWall,
  wallMs,
  wallToUtc,
  ZoneResolver,
  type ZoneResolver as ZoneResolverType,
  type ZoneRules,
  zonedMidnight,
} from "./zones";

export interface ExpandOptions {
  /** Window start, epoch ms (inclusive). */
  from: number;
  /** Window end, epoch ms (exclusive). */
  to: number;
  /** IANA zone of the user: floating times and all-day dates are read in it. */
  userZone: string;
  /** The user's addresses, to find their own ATTENDEE PARTSTAT. */
  userEmails?: string[];
}

export type { SkippedEvent };

export interface ExpandResult {
  occurrences: Occurrence[];
  skipped: SkippedEvent[];
}

/** A rule that still yields nothing after this many steps is abandoned (reported, not thrown). */
const MAX_STEPS = 100_000;
const WEEKDAYS = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"] as const;

interface Context {
  from: number;
  to: number;
  userZone: ZoneRules;
  floating: RfcTimezone;
  zones: ZoneResolverType;
  emails: Set<string>;
}

interface EventRecord {
  comp: ICAL.Component;
  uid: string;
  sequence: number;
  index: number;
  rid?: ICAL.Property;
}

/** How an instance's end follows from its start. */
type EndRule =
  | { type: "exact"; ms: number }
  | { type: "nominal"; duration: ICAL.Duration }
  | { type: "days"; days: number };

/**
 * Expands a feed into the occurrences that overlap [from, to). Broken events are skipped with a
 * reason; only a feed that is not iCalendar at all throws (CalendarParseError).
 */
export function expand(icsText: string, opts: ExpandOptions): ExpandResult {
  if (!Number.isFinite(opts.from) || !Number.isFinite(opts.to) || opts.to < opts.from) {
    throw new InvalidWindowError(`invalid window: from=${opts.from} to=${opts.to}`);
  }
  const userZone = globalZone(opts.userZone);
  if (!userZone) throw new UnknownTimeZoneError(opts.userZone);
  const skipped: SkippedEvent[] = [];
  const root = parseFeed(icsText, skipped);
  const wrTz = textOf(root, "x-wr-timezone");
  const wrZone = wrTz !== undefined ? globalZone(wrTz) : undefined;
  const ctx: Context = {
    from: opts.from,
    to: opts.to,
    userZone,
    floating: new RfcTimezone(wrZone ?? userZone),
    zones: new ZoneResolver(root),
    emails: new Set((opts.userEmails ?? []).map(normaliseEmail)),
  };

  const groups = new Map<string, EventRecord[]>();
  root.getAllSubcomponents("vevent").forEach((comp, index) => {
    const rawUid = textOf(comp, "uid");
    // A UID-less event is still someone's meeting; give it an identity of its own.
    const uid = rawUid !== undefined && rawUid !== "" ? rawUid : `no-uid-${index}`;
    const seq = Number(textOf(comp, "sequence") ?? 0);
    const record: EventRecord = {
      comp,
      uid,
      sequence: Number.isFinite(seq) ? seq : 0,
      index,
      rid: comp.getFirstProperty("recurrence-id") ?? undefined,
    };
    const list = groups.get(uid);
    if (list) list.push(record);
    else groups.set(uid, [record]);
  });

  const occurrences: Occurrence[] = [];
  for (const [uid, records] of groups) {
    // ical.js decorates values lazily, so any read can throw on content the parse let through.
    // Whatever escapes the finer-grained handling costs this UID's events, never the feed.
    const found: Occurrence[] = [];
    try {
      expandGroup(uid, records, ctx, found, skipped);
      occurrences.push(...found);
    } catch (error: unknown) {
      for (const r of records) skipped.push(skipOf(r.comp, uid, error));
    }
  }
  occurrences.sort((a, b) => a.start - b.start || a.end - b.end || a.uid.localeCompare(b.uid));
  return { occurrences, skipped };
}

/**
 * A property's value as text, or undefined. A value that does not fit its declared type
 * (SUMMARY;VALUE=DATE:Lunch) is read as written instead of throwing.
 */
function textOf(comp: ICAL.Component, name: string): string | undefined {
  const prop = comp.getFirstProperty(name);
  return prop ? textValueOf(prop) : undefined;
}

function textValueOf(prop: ICAL.Property): string | undefined {
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

const normaliseEmail = (value: string): string =>
  value
    .trim()
    .replace(/^mailto:/i, "")
    .toLowerCase();

const dateKey = (t: ICAL.Time): string =>
  `${String(t.year).padStart(4, "0")}-${String(t.month).padStart(2, "0")}-${String(t.day).padStart(2, "0")}`;

/** Gives a parsed value its zone: its TZID (resolved by us), UTC, or the floating default. */
function localize(
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
  const id = Array.isArray(tzid) ? tzid[0] : tzid;
  t.zone = typeof id === "string" && id !== "" ? ctx.zones.resolve(id) : floating;
  return t;
}

function timeOf(prop: ICAL.Property, ctx: Context, floating: ICAL.Timezone): ICAL.Time {
  const value = prop.getFirstValue();
  if (!(value instanceof ICAL.Time)) throw new Error(`${prop.name.toUpperCase()} is not a date`);
  return localize(value, prop, ctx, floating);
}

/** Instant of a value; DATE values are midnight in the user's zone (all-day dates are theirs). */
function instantOf(t: ICAL.Time, ctx: Context): number {
  if (t.isDate) return zonedMidnight(t.year, t.month, t.day, ctx.userZone);
  return t.toUnixTime() * 1000;
}

function endRuleOf(comp: ICAL.Component, start: ICAL.Time, ctx: Context): EndRule {
  const dtendProp = comp.getFirstProperty("dtend");
  if (dtendProp) {
    const end = timeOf(dtendProp, ctx, start.zone ?? ctx.floating);
    if (start.isDate && end.isDate) {
      const days = Math.round(
        (wallMs(end.year, end.month, end.day) - wallMs(start.year, start.month, start.day)) /
          DAY_MS,
      );
      // DTEND equal to (or, swapped, before) DTSTART still means that one day.
      return { type: "days", days: Math.max(1, Math.abs(days)) };
    }
    return { type: "exact", ms: exactLength(start, end, ctx) };
  }
  const durationProp = comp.getFirstProperty("duration");
  if (durationProp) {
    const duration = durationProp.getFirstValue();
    if (!(duration instanceof ICAL.Duration)) throw new Error("DURATION is not a duration");
    if (start.isDate) {
      return { type: "days", days: Math.max(1, Math.ceil(duration.toSeconds() / 86_400)) };
    }
    return { type: "nominal", duration };
  }
  return start.isDate ? { type: "days", days: 1 } : { type: "exact", ms: 0 };
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
function spanOf(start: ICAL.Time, rule: EndRule, ctx: Context): [number, number] {
  const s = instantOf(start, ctx);
  let e: number;
  if (rule.type === "exact") e = s + rule.ms;
  else if (rule.type === "days") {
    const d = start.clone();
    d.adjust(rule.days, 0, 0, 0);
    e = instantOf(d, ctx);
  } else {
    // Weeks and days are nominal (same wall time), hours/minutes/seconds exact (RFC 5545 §3.3.6).
    const dur = rule.duration;
    const sign = dur.isNegative ? -1 : 1;
    const d = start.clone();
    d.adjust(sign * (dur.weeks * 7 + dur.days), 0, 0, 0);
    e = instantOf(d, ctx) + sign * (dur.hours * 3600 + dur.minutes * 60 + dur.seconds) * 1000;
  }
  return e < s ? [e, s] : [s, e];
}

/** Half-open overlap with [from, to); an empty window [t, t] asks "what is on at instant t". */
const overlaps = (start: number, end: number, ctx: Context): boolean => {
  if (ctx.from === ctx.to) {
    return start === end ? start === ctx.from : start <= ctx.from && end > ctx.from;
  }
  return start === end ? start >= ctx.from && start < ctx.to : start < ctx.to && end > ctx.from;
};

function expandGroup(
  uid: string,
  records: EventRecord[],
  ctx: Context,
  out: Occurrence[],
  skipped: SkippedEvent[],
): void {
  const later = (a: EventRecord, b: EventRecord) =>
    b.sequence > a.sequence || (b.sequence === a.sequence && b.index > a.index) ? b : a;
  // Several masters with one UID are versions of one event: the highest SEQUENCE wins.
  let master: EventRecord | undefined;
  for (const r of records) if (!r.rid) master = master ? later(master, r) : r;

  let masterStart: ICAL.Time | undefined;
  let masterEnd: EndRule | undefined;
  if (master) {
    try {
      const dtstart = master.comp.getFirstProperty("dtstart");
      if (!dtstart) throw new Error("missing DTSTART");
      masterStart = timeOf(dtstart, ctx, ctx.floating);
      masterEnd = endRuleOf(master.comp, masterStart, ctx);
    } catch (error: unknown) {
      skipped.push(skipOf(master.comp, uid, error));
      master = undefined;
    }
  }
  const masterZone = masterStart?.zone ?? ctx.floating;
  const masterAllDay = masterStart?.isDate ?? false;

  // Overrides, keyed by the instance they replace; duplicates collapse to the latest version.
  const byInstant = new Map<number, Override>();
  const byDate = new Map<string, Override>();
  const ranges: Override[] = [];
  for (const r of records) {
    if (!r.rid) continue;
    try {
      const ridValue = r.rid.getFirstValue();
      if (!(ridValue instanceof ICAL.Time)) throw new Error("RECURRENCE-ID is not a date");
      const rid = localize(ridValue, r.rid, ctx, masterZone);
      const dtstartProp = r.comp.getFirstProperty("dtstart");
      const start = dtstartProp ? timeOf(dtstartProp, ctx, masterZone) : rid;
      const end = endRuleOf(r.comp, start, ctx);
      const [s, e] = spanOf(start, end, ctx);
      const ov: Override = {
        record: r,
        rid,
        ridMs: instantOf(rid, ctx),
        start: s,
        end: e,
        allDay: start.isDate,
        endRule: end,
        cancelled: upper(textOf(r.comp, "status")) === "CANCELLED",
      };
      const range = upper(r.rid.getParameter("range")) === "THISANDFUTURE";
      const useDate = rid.isDate || masterAllDay;
      const key = useDate ? dateKey(rid) : ov.ridMs;
      const map = useDate ? byDate : byInstant;
      const prev = (map as Map<string | number, Override>).get(key);
      if (!prev || later(prev.record, r) === r)
        (map as Map<string | number, Override>).set(key, ov);
      if (range) ranges.push(ov);
    } catch (error: unknown) {
      skipped.push(skipOf(r.comp, uid, error));
    }
  }
  ranges.sort((a, b) => a.ridMs - b.ridMs);

  const exInstants = new Set<number>();
  const exDates = new Set<string>();
  const masterOccurrences: Occurrence[] = [];
  if (master && masterStart && masterEnd) {
    try {
      const instances = instancesOf(
        master.comp,
        masterStart,
        masterEnd,
        ranges,
        ctx,
        exInstants,
        exDates,
      );
      for (const inst of instances) {
        const instMs = instantOf(inst.time, ctx);
        if (exInstants.has(instMs) || exDates.has(dateKey(inst.time))) continue;
        const single =
          (!masterAllDay ? byInstant.get(instMs) : undefined) ?? byDate.get(dateKey(inst.time));
        if (single) continue; // emitted below from the override itself
        const recurring = instances.length > 1 || hasRecurrence(master.comp);
        const range = lastRangeAtOrBefore(ranges, instMs);
        let [s, e] =
          inst.end !== undefined ? [instMs, inst.end] : spanOf(inst.time, masterEnd, ctx);
        let comp = master.comp;
        if (range) {
          // RANGE=THISANDFUTURE moves every later instance by the same offset (RFC 5545 §3.8.4.4).
          const shift = range.start - range.ridMs;
          s = instMs + shift;
          e = s + (range.end - range.start);
          comp = range.record.comp;
        }
        if (!overlaps(s, e, ctx)) continue;
        masterOccurrences.push(
          occurrenceOf(
            comp,
            uid,
            s,
            e,
            masterAllDay,
            ctx,
            recurring ? ridString(inst.time, ctx) : undefined,
          ),
        );
      }
    } catch (error: unknown) {
      skipped.push(skipOf(master.comp, uid, error));
      // A series that cannot be expanded is gone whole; its modified instances still stand.
      masterOccurrences.length = 0;
      master = undefined;
    }
  }
  out.push(...masterOccurrences);

  const masterSeq = master?.sequence ?? Number.NEGATIVE_INFINITY;
  for (const ov of [...byInstant.values(), ...byDate.values()]) {
    try {
      if (ov.cancelled) continue;
      // With a master present, a RECURRENCE-ID must name one of its instances (RFC 5545 §3.8.4.4).
      if (
        master &&
        masterStart &&
        masterEnd &&
        !isInstanceOf(master.comp, masterStart, masterEnd, ov, ctx)
      ) {
        continue;
      }
      // An EXDATE of a newer master version deletes an older modification of that instance.
      const exdated = exInstants.has(ov.ridMs) || exDates.has(dateKey(ov.rid));
      if (exdated && ov.record.sequence <= masterSeq) continue;
      if (!overlaps(ov.start, ov.end, ctx)) continue;
      out.push(
        occurrenceOf(ov.record.comp, uid, ov.start, ov.end, ov.allDay, ctx, ridString(ov.rid, ctx)),
      );
    } catch (error: unknown) {
      skipped.push(skipOf(ov.record.comp, uid, error));
    }
  }
}

function isInstanceOf(
  comp: ICAL.Component,
  dtstart: ICAL.Time,
  endRule: EndRule,
  ov: Override,
  ctx: Context,
): boolean {
  const narrow: Context = { ...ctx, from: ov.ridMs, to: ov.ridMs + 1 };
  const instances = instancesOf(comp, dtstart, endRule, [], narrow, new Set(), new Set());
  const ridDate = dateKey(ov.rid);
  return instances.some((i) =>
    ov.rid.isDate || i.time.isDate
      ? dateKey(i.time) === ridDate
      : instantOf(i.time, ctx) === ov.ridMs,
  );
}

interface Override {
  record: EventRecord;
  rid: ICAL.Time;
  ridMs: number;
  start: number;
  end: number;
  allDay: boolean;
  endRule: EndRule;
  cancelled: boolean;
}

function lastRangeAtOrBefore(ranges: Override[], ms: number): Override | undefined {
  let found: Override | undefined;
  for (const r of ranges) if (r.ridMs <= ms) found = r;
  return found;
}

const hasRecurrence = (comp: ICAL.Component): boolean =>
  comp.hasProperty("rrule") || comp.hasProperty("rdate");

const upper = (v: unknown): string | undefined =>
  typeof v === "string" ? v.trim().toUpperCase() : Array.isArray(v) ? upper(v[0]) : undefined;

function ridString(t: ICAL.Time, ctx: Context): string {
  return t.isDate ? dateKey(t) : new Date(instantOf(t, ctx)).toISOString();
}

function skipOf(comp: ICAL.Component, uid: string, error: unknown): SkippedEvent {
  return { uid, summary: textOf(comp, "summary"), reason: oneLine(error) };
}

interface Instance {
  time: ICAL.Time;
  /** Explicit end of a PERIOD-valued RDATE. */
  end?: number;
}

/** The recurrence set (RRULEs ∪ RDATEs ∪ DTSTART) near the window, and the EXDATEs. */
function instancesOf(
  comp: ICAL.Component,
  dtstart: ICAL.Time,
  endRule: EndRule,
  ranges: Override[],
  ctx: Context,
  exInstants: Set<number>,
  exDates: Set<string>,
): Instance[] {
  const approxDuration = Math.abs(
    spanOf(dtstart, endRule, ctx)[1] - spanOf(dtstart, endRule, ctx)[0],
  );
  const maxShift = ranges.reduce((m, r) => Math.max(m, Math.abs(r.start - r.ridMs)), 0);
  const lo = ctx.from - approxDuration - 2 * DAY_MS - maxShift;
  const hi = ctx.to + 2 * DAY_MS + maxShift;
  const found = new Map<string, Instance>();
  const add = (inst: Instance) => {
    const key = inst.time.isDate ? dateKey(inst.time) : String(instantOf(inst.time, ctx));
    if (!found.has(key)) found.set(key, inst);
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
    const ff = fastForward(rule, dtstart, lo);
    const iterator = (ff?.rule ?? rule).iterator(ff?.start ?? dtstart);
    for (let step = 0; ; step++) {
      if (step > MAX_STEPS) {
        throw new InvalidEventError(`RRULE ${value.toString()} yields too many instances`);
      }
      const next = nextOf(iterator, value);
      if (!next) break;
      const ms = instantOf(next, ctx);
      if (ms > hi) break;
      if (ms >= lo) add({ time: next.clone() });
    }
  }

  const masterZone = dtstart.zone ?? ctx.floating;
  for (const prop of comp.getAllProperties("rdate")) {
    for (const value of prop.getValues()) {
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
    }
  }

  for (const prop of comp.getAllProperties("exdate")) {
    for (const value of prop.getValues()) {
      if (!(value instanceof ICAL.Time)) continue;
      const t = localize(value, prop, ctx, masterZone);
      // A DATE EXDATE removes every instance on that date; all-day series match by date.
      if (t.isDate || dtstart.isDate) exDates.add(dateKey(t));
      else exInstants.add(instantOf(t, ctx));
    }
  }
  return [...found.values()].sort((a, b) => instantOf(a.time, ctx) - instantOf(b.time, ctx));
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
 * end of that day (RFC 5545 requires UTC there, but producers write both).
 */
function normaliseUntil(rule: ICAL.Recur, dtstart: ICAL.Time): ICAL.Recur {
  const until = rule.until;
  if (!until || dtstart.isDate) return rule;
  const copy = rule.clone();
  if (until.isDate) {
    copy.until = new ICAL.Time(
      { year: until.year, month: until.month, day: until.day, hour: 23, minute: 59, second: 59 },
      dtstart.zone ?? undefined,
    );
  } else if (until.zone !== ICAL.Timezone.utcTimezone && dtstart.zone) {
    const u = until.clone();
    u.zone = dtstart.zone;
    copy.until = u;
  }
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

function occurrenceOf(
  comp: ICAL.Component,
  uid: string,
  start: number,
  end: number,
  allDay: boolean,
  ctx: Context,
  recurrenceId: string | undefined,
): Occurrence {
  const text = (name: string): string | undefined => textOf(comp, name);
  let partstat: string | undefined;
  const attendees = comp.getAllProperties("attendee");
  if (ctx.emails.size > 0) {
    for (const a of attendees) {
      const value = textValueOf(a);
      const email = a.getParameter("email");
      const candidates = [value, Array.isArray(email) ? email[0] : email]
        .filter((v): v is string => typeof v === "string")
        .map(normaliseEmail);
      if (candidates.some((c) => ctx.emails.has(c))) {
        partstat = upper(a.getParameter("partstat")) ?? "NEEDS-ACTION";
        break;
      }
    }
  }
  const occurrence: Occurrence = {
    uid,
    start,
    end,
    allDay,
    summary: text("summary") ?? "",
    attendeeCount: attendees.length,
  };
  if (recurrenceId !== undefined) occurrence.recurrenceId = recurrenceId;
  const fields: Array<[keyof Occurrence, string]> = [
    ["status", "status"],
    ["transp", "transp"],
    ["busyStatus", "x-microsoft-cdo-busystatus"],
    ["class", "class"],
  ];
  for (const [key, prop] of fields) {
    const v = upper(textOf(comp, prop));
    if (v) (occurrence as unknown as Record<string, string>)[key] = v;
  }
  if (partstat) occurrence.partstat = partstat;
  const location = text("location");
  if (location) occurrence.location = location;
  return occurrence;
}
