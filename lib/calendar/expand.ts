import type ICAL from "ical.js";
import type { Occurrence } from "#lib/core/types";
import { InvalidWindowError, UnknownTimeZoneError } from "./errors";
import {
  type Context,
  dateKey,
  type EndRule,
  endAfter,
  endRuleOf,
  instantOf,
  overlaps,
  rulesOf,
  spanOf,
  textOf,
  timeOf,
} from "./event-time";
import { RfcTimezone } from "./ical-zones";
import { normaliseEmail, occurrenceOf, upper } from "./occurrence";
import { type CalendarWarning, oneLine, type SkippedEvent } from "./parse";
import { parseInChunks } from "./parse-chunks";
import { type InstanceSet, instancesOf } from "./recurrence";
import {
  type ExpansionLimit,
  type ExpansionLimits,
  type ExpansionPace,
  ExpansionStopped,
  letStopThrough,
  runPaced,
  runToEnd,
  untilStopped,
  type Work,
  WorkMeter,
} from "./work-budget";
import { globalZone } from "./zone-names";
import { ZoneResolver } from "./zone-resolver";
import { utcToWall, wallToUtc, type ZoneRules } from "./zones";

export interface ExpandOptions {
  /** Window start, epoch ms (inclusive). */
  from: number;
  /** Window end, epoch ms (exclusive). */
  to: number;
  /** IANA zone of the user: floating times and all-day dates are read in it. */
  userZone: string;
  /** The user's addresses, to find their own ATTENDEE PARTSTAT. */
  userEmails?: string[];
  /** The caps (lib/calendar/work-budget.ts); each defaults to its named constant. */
  limits?: Partial<ExpansionLimits>;
  /** The work timer and deadline; without one, the time budget does not apply. */
  pace?: ExpansionPace;
}

export type { CalendarWarning, SkippedEvent };

export interface ExpandResult {
  occurrences: Occurrence[];
  /** Events that could not be used at all (no usable start, say), each with its reason. */
  skipped: SkippedEvent[];
  /** What was read anyway, with a guess or a loss: a guessed time zone, a dropped line. */
  warnings: CalendarWarning[];
  /** The cap the feed reached: it was read up to it, and only that much is here. */
  truncated?: { limit: ExpansionLimit; cap: number };
  /** The CPU milliseconds the expansion cost (with a timer). */
  spentMs?: number;
}

interface EventRecord {
  comp: ICAL.Component;
  uid: string;
  sequence: number;
  index: number;
  rid?: ICAL.Property;
}

/**
 * Expands a feed into the occurrences that overlap [from, to). Broken events are skipped with a
 * reason; only a feed that is not iCalendar at all throws (CalendarParseError). Held to the caps
 * of lib/calendar/work-budget.ts without giving way to the event loop: for the CLI and tests.
 */
export function expand(icsText: string, opts: ExpandOptions): ExpandResult {
  const meter = new WorkMeter(opts.limits, opts.pace);
  return { ...runToEnd(expandFeed(icsText, opts, meter), meter), ...meter.outcome() };
}

/**
 * `expand` as the sync runs it: it gives way to the event loop every EXPANSION_SLICE_MS, so
 * other requests are served meanwhile, and its CPU budget counts only its own slices. Past
 * `pace.stopBy` (wall time) it throws ExpansionCutShortError.
 */
export async function expandPaced(
  icsText: string,
  opts: ExpandOptions & { pace: ExpansionPace },
): Promise<ExpandResult> {
  const meter = new WorkMeter(opts.limits, opts.pace);
  const read = await runPaced(expandFeed(icsText, opts, meter), meter, opts.pace.timer);
  return { ...read, ...meter.outcome() };
}

/**
 * The feed read up to its caps: a feed-wide stop ends the reading and keeps what was found;
 * the deadline's stop throws ExpansionCutShortError.
 */
function* expandFeed(icsText: string, opts: ExpandOptions, meter: WorkMeter): Work<ExpandResult> {
  if (!Number.isFinite(opts.from) || !Number.isFinite(opts.to) || opts.to < opts.from) {
    throw new InvalidWindowError(`invalid window: from=${opts.from} to=${opts.to}`);
  }
  const userZone = globalZone(opts.userZone);
  if (!userZone) throw new UnknownTimeZoneError(opts.userZone);
  const read: ExpandResult = { occurrences: [], skipped: [], warnings: [] };
  yield* untilStopped(readFeed(icsText, opts, userZone, meter, read));
  read.occurrences.sort((a, b) => a.start - b.start || a.end - b.end || a.uid.localeCompare(b.uid));
  return read;
}

function* readFeed(
  icsText: string,
  opts: ExpandOptions,
  userZone: ZoneRules,
  meter: WorkMeter,
  { occurrences, skipped, warnings }: ExpandResult,
): Work<void> {
  // Names in messages come from the feed: one line each, and not a page long.
  const warn = (warning: CalendarWarning) =>
    warnings.push({ ...warning, message: oneLineOf(warning.message) });
  const root = yield* parseInChunks(icsText, skipped, warnings, meter);
  const wrTz = textOf(root, "x-wr-timezone");
  const wrZone = wrTz !== undefined && wrTz.trim() !== "" ? globalZone(wrTz) : undefined;
  if (wrTz !== undefined && wrTz.trim() !== "" && !wrZone) {
    warn({ tzid: wrTz, message: `unknown X-WR-TIMEZONE "${wrTz}"; the user's zone is used` });
  }
  const ctx: Context = {
    from: opts.from,
    to: opts.to,
    userZone,
    floating: new RfcTimezone(wrZone ?? userZone),
    zones: new ZoneResolver(root, { calendar: wrZone, user: userZone, asOf: opts.from }, warn),
    emails: new Set((opts.userEmails ?? []).map(normaliseEmail)),
    warn,
  };

  // The parse gave way between its pieces; its time counts against the budget.
  if (meter.step()) yield;
  const groups = new Map<string, EventRecord[]>();
  for (const [index, comp] of root.getAllSubcomponents("vevent").entries()) {
    if (meter.step()) yield;
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
  }

  for (const [uid, records] of groups) {
    // ical.js decorates values lazily, so any read can throw on content the parse let through.
    // Whatever escapes the finer-grained handling costs this UID's events, never the feed.
    const found: Occurrence[] = [];
    try {
      yield* expandGroup(uid, records, ctx, found, skipped, meter);
      occurrences.push(...found);
    } catch (error: unknown) {
      // A feed-wide stop keeps what this event had found: the feed is read up to the cap.
      if (error instanceof ExpansionStopped) occurrences.push(...found);
      letStopThrough(error);
      for (const r of records) skipped.push(skipOf(r.comp, uid, error));
    }
  }
}

/** A modified instance (a VEVENT with RECURRENCE-ID), read against its master. */
interface Override {
  record: EventRecord;
  rid: ICAL.Time;
  ridMs: number;
  start: number;
  end: number;
  allDay: boolean;
  endRule: EndRule;
  cancelled: boolean;
  /** RANGE=THISANDFUTURE: the change also applies to every later instance. */
  thisAndFuture: boolean;
}

const later = (a: EventRecord, b: EventRecord) =>
  b.sequence > a.sequence || (b.sequence === a.sequence && b.index > a.index) ? b : a;

function* expandGroup(
  uid: string,
  records: EventRecord[],
  ctx: Context,
  out: Occurrence[],
  skipped: SkippedEvent[],
  meter: WorkMeter,
): Work<void> {
  // Several masters with one UID are versions of one event: the highest SEQUENCE wins.
  let master: EventRecord | undefined;
  for (const r of records) if (!r.rid) master = master ? later(master, r) : r;

  let masterStart: ICAL.Time | undefined;
  let masterEnd: EndRule | undefined;
  if (master) {
    try {
      // No DTSTART, no occurrence: an event is never placed at an instant nobody wrote.
      const dtstart = master.comp.getFirstProperty("dtstart");
      if (!dtstart) throw new Error("missing DTSTART");
      masterStart = timeOf(dtstart, ctx, ctx.floating);
      masterEnd = endRuleOf(master.comp, masterStart, ctx, uid);
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
  for (const r of records) {
    if (!r.rid) continue;
    if (meter.step()) yield;
    try {
      const ov = overrideOf(r, masterZone, ctx, uid);
      const useDate = ov.rid.isDate || masterAllDay;
      const map = (useDate ? byDate : byInstant) as Map<string | number, Override>;
      const key = useDate ? dateKey(ov.rid) : ov.ridMs;
      const prev = map.get(key);
      if (!prev || later(prev.record, r) === r) map.set(key, ov);
    } catch (error: unknown) {
      skipped.push(skipOf(r.comp, uid, error));
    }
  }
  const overrides = [...byInstant.values(), ...byDate.values()];
  // Only the winning version of each instance counts: an edit without RANGE withdraws the range.
  const ranges = overrides.filter((o) => o.thisAndFuture).sort((a, b) => a.ridMs - b.ridMs);

  let set: InstanceSet = { instances: [], exInstants: new Set(), exDates: new Set() };
  const masterOccurrences: Occurrence[] = [];
  if (master && masterStart && masterEnd) {
    try {
      const slack = ranges.reduce((m, r) => Math.max(m, Math.abs(r.start - r.ridMs)), 0);
      set = yield* instancesOf(master.comp, masterStart, masterEnd, slack, ctx, uid, meter);
      const recurring = set.instances.length > 1 || hasRecurrence(master.comp);
      for (const inst of set.instances) {
        if (meter.step()) yield;
        const instMs = instantOf(inst.time, ctx);
        if (set.exInstants.has(instMs) || set.exDates.has(dateKey(inst.time))) continue;
        const single =
          (!masterAllDay ? byInstant.get(instMs) : undefined) ?? byDate.get(dateKey(inst.time));
        if (single) continue; // emitted below from the override itself
        const range = lastRangeAtOrBefore(ranges, instMs);
        let [s, e] =
          inst.end !== undefined ? [instMs, inst.end] : spanOf(inst.time, masterEnd, ctx);
        if (range) [s, e] = movedByRange(instMs, range, masterStart, ctx);
        if (!overlaps(s, e, ctx)) continue;
        const comp = range?.record.comp ?? master.comp;
        const allDay = range?.allDay ?? masterAllDay;
        const rid = recurring ? ridString(inst.time, ctx) : undefined;
        meter.occurrence();
        masterOccurrences.push(occurrenceOf(comp, uid, s, e, allDay, ctx, rid));
      }
    } catch (error: unknown) {
      if (error instanceof ExpansionStopped) out.push(...masterOccurrences);
      letStopThrough(error);
      skipped.push(skipOf(master.comp, uid, error));
      // A series that cannot be expanded is gone whole; its modified instances still stand.
      masterOccurrences.length = 0;
      master = undefined;
    }
  }
  out.push(...masterOccurrences);

  const masterSeq = master?.sequence ?? Number.NEGATIVE_INFINITY;
  for (const ov of overrides) {
    if (meter.step()) yield;
    try {
      if (ov.cancelled) continue;
      // With a master present, a RECURRENCE-ID must name one of its instances (RFC 5545 §3.8.4.4).
      if (master && masterStart && masterEnd) {
        const named = yield* isInstanceOf(master.comp, masterStart, masterEnd, ov, ctx, uid, meter);
        if (!named) continue;
      }
      // An EXDATE of a newer master version deletes an older modification of that instance.
      const exdated = set.exInstants.has(ov.ridMs) || set.exDates.has(dateKey(ov.rid));
      if (exdated && ov.record.sequence <= masterSeq) continue;
      if (!overlaps(ov.start, ov.end, ctx)) continue;
      meter.occurrence();
      out.push(
        occurrenceOf(ov.record.comp, uid, ov.start, ov.end, ov.allDay, ctx, ridString(ov.rid, ctx)),
      );
    } catch (error: unknown) {
      letStopThrough(error);
      skipped.push(skipOf(ov.record.comp, uid, error));
    }
  }
}

function overrideOf(r: EventRecord, masterZone: ICAL.Timezone, ctx: Context, uid: string) {
  const ridProp = r.rid as ICAL.Property;
  const rid = timeOf(ridProp, ctx, masterZone);
  const cancelled = upper(textOf(r.comp, "status")) === "CANCELLED";
  const dtstartProp = r.comp.getFirstProperty("dtstart");
  // A cancellation needs no start; a moved instance without one would be placed by guesswork.
  if (!dtstartProp && !cancelled) throw new Error("missing DTSTART");
  const start = dtstartProp ? timeOf(dtstartProp, ctx, masterZone) : rid;
  const endRule = endRuleOf(r.comp, start, ctx, uid);
  const [s, e] = spanOf(start, endRule, ctx);
  const ov: Override = {
    record: r,
    rid,
    ridMs: instantOf(rid, ctx),
    start: s,
    end: e,
    allDay: start.isDate,
    endRule,
    cancelled,
    thisAndFuture: upper(ridProp.getParameter("range")) === "THISANDFUTURE",
  };
  return ov;
}

/**
 * RANGE=THISANDFUTURE moves every later instance as it moved the one it names (RFC 5545
 * §3.8.4.4): by the same wall-clock shift in the series' zone, so a move made in winter keeps
 * its local time after the clocks change, and with the override's own length.
 */
function movedByRange(
  instMs: number,
  range: Override,
  masterStart: ICAL.Time,
  ctx: Context,
): [number, number] {
  const rules = rulesOf(masterStart, ctx);
  const shift = utcToWall(range.start, rules) - utcToWall(range.ridMs, rules);
  const s = wallToUtc(utcToWall(instMs, rules) + shift, rules);
  const e = endAfter(s, range.endRule, rules);
  return e < s ? [e, s] : [s, e];
}

function* isInstanceOf(
  comp: ICAL.Component,
  dtstart: ICAL.Time,
  endRule: EndRule,
  ov: Override,
  ctx: Context,
  uid: string,
  meter: WorkMeter,
): Work<boolean> {
  // Warnings about the master's values were given when it was expanded.
  const narrow: Context = { ...ctx, from: ov.ridMs, to: ov.ridMs + 1, warn: () => {} };
  const { instances } = yield* instancesOf(comp, dtstart, endRule, 0, narrow, uid, meter);
  const ridDate = dateKey(ov.rid);
  return instances.some((i) =>
    ov.rid.isDate || i.time.isDate
      ? dateKey(i.time) === ridDate
      : instantOf(i.time, ctx) === ov.ridMs,
  );
}

/**
 * The THISANDFUTURE override in force at an instant: the latest one at or before it. `ranges`
 * is sorted by instant: a binary search, so a feed of many ranges costs no scan per instance.
 */
function lastRangeAtOrBefore(ranges: Override[], ms: number): Override | undefined {
  let lo = 0;
  let hi = ranges.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ranges[mid] as Override).ridMs <= ms) lo = mid + 1;
    else hi = mid;
  }
  return ranges[lo - 1];
}

const hasRecurrence = (comp: ICAL.Component): boolean =>
  comp.hasProperty("rrule") || comp.hasProperty("rdate");

function ridString(t: ICAL.Time, ctx: Context): string {
  return t.isDate ? dateKey(t) : new Date(instantOf(t, ctx)).toISOString();
}

const oneLineOf = (message: string): string => {
  const flat = message.replace(/[\r\n\t]+/g, " ");
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
};

function skipOf(comp: ICAL.Component, uid: string, error: unknown): SkippedEvent {
  return { uid, summary: textOf(comp, "summary"), reason: oneLine(error) };
}
