import type { StatusValue } from "#lib/core/types";
import type { CalendarEvent, UserPlan } from "./scenario";

/**
 * The soak's own answer to "which status must show at instant t", written from the rules in
 * the README (Calendars) and the design, not from the code under test: nothing here comes from
 * lib/core's timeline or rules, nor from lib/calendar. It reads the scenario's description of
 * each calendar (the same description the feed's .ics text is rendered from), so a bug in how
 * the service classifies, ranks, merges or words a status makes the soak fail instead of
 * agreeing with itself.
 */

/** The README's default rules (Calendars), as a user who never changed them has them. */
export const README_RULES = {
  ooo: {
    text: "Out of office",
    emoji: ":palm_tree:",
    keywords: ["out of office", "ooo", "vacation", "pto", "annual leave", "on leave"],
  },
  focus: {
    text: "Focus time",
    emoji: ":headphones:",
    keywords: ["focus", "focus time", "deep work", "no meetings"],
  },
  meeting: { text: "In a meeting", emoji: ":spiral_calendar_pad:", keywords: [] as string[] },
} as const;

type Kind = keyof typeof README_RULES;

/** out-of-office > focus > meeting. */
const RANK: Record<Kind, number> = { meeting: 1, focus: 2, ooo: 3 };

const EMPTY: StatusValue = { text: "", emoji: "", expiration: 0 };

/** Keywords match whole words, case-insensitively: "OOO - school run" is out of office. */
function hasKeyword(title: string, keywords: readonly string[]): boolean {
  const words = ` ${title.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, " ")} `;
  return keywords.some((k) => words.includes(` ${k.toLowerCase()} `));
}

/**
 * The kind an event asks for, or undefined when it sets no status: cancelled, declined by the
 * user, tentative (the user's answer or the event's status), transparent (shown as free), or
 * all-day without being out of office.
 */
export function kindOf(e: CalendarEvent): Kind | undefined {
  if (e.cancelled || e.partstat === "DECLINED") return undefined;
  if (e.partstat === "TENTATIVE" || e.tentative) return undefined;
  if (e.transparent) return undefined;
  const ooo = hasKeyword(e.title, README_RULES.ooo.keywords);
  if (e.allDay && !ooo) return undefined;
  if (ooo) return "ooo";
  return hasKeyword(e.title, README_RULES.focus.keywords) ? "focus" : "meeting";
}

// ---- time in the user's zone ---------------------------------------------------------------

interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall clock in a zone, read from the platform's time zone database. */
export function localParts(ms: number, tz: string): LocalParts {
  let f = formatters.get(tz);
  if (f === undefined) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: tz,
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
      hourCycle: "h23",
    });
    formatters.set(tz, f);
  }
  const parts = f.formatToParts(ms);
  const n = (type: string) => Number(parts.find((p) => p.type === type)?.value);
  return {
    year: n("year"),
    month: n("month"),
    day: n("day"),
    hour: n("hour"),
    minute: n("minute"),
    second: n("second"),
  };
}

/** How far the zone's wall clock is ahead of UTC at instant ms. */
function offsetMs(ms: number, tz: string): number {
  const p = localParts(ms, tz);
  const wall = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return wall - (ms - (((ms % 1000) + 1000) % 1000));
}

/** Midnight in the zone of the date whose UTC midnight is `dateUtcMs`. */
export function localMidnight(dateUtcMs: number, tz: string): number {
  const first = dateUtcMs - offsetMs(dateUtcMs, tz);
  return dateUtcMs - offsetMs(first, tz);
}

/** When an event occupies the user's time: an all-day event from midnight to midnight in their zone. */
export function eventSpan(e: CalendarEvent, tz: string): { start: number; end: number } {
  return e.allDay
    ? { start: localMidnight(e.start, tz), end: localMidnight(e.end, tz) }
    : { start: e.start, end: e.end };
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const two = (n: number) => String(n).padStart(2, "0");
const dayName = (p: LocalParts) =>
  `${WEEKDAYS[new Date(Date.UTC(p.year, p.month - 1, p.day)).getUTCDay()]}, ${p.day} ${MONTHS[p.month - 1]}`;
const sameDate = (a: LocalParts, b: LocalParts) =>
  a.year === b.year && a.month === b.month && a.day === b.day;

/**
 * "Out of office until …" in the user's zone (README, Quick start): the last day out when it
 * ends at midnight, the time when it ends the day it is shown, otherwise day and time. The
 * status is written once, when the absence starts, so "shown" is its first day.
 */
export function outOfOfficeWording(start: number, end: number, tz: string): string {
  const base = README_RULES.ooo.text;
  const e = localParts(end, tz);
  if (e.hour === 0 && e.minute === 0 && e.second === 0)
    return `${base} until ${dayName(localParts(end - 1, tz))}`;
  const time = `${two(e.hour)}:${two(e.minute)}`;
  if (sameDate(localParts(start, tz), e)) return `${base} until ${time}`;
  return `${base} until ${dayName(e)} ${time}`;
}

// ---- the status at an instant --------------------------------------------------------------

/** The calendar in force at instant t: each edit applies from its instant on. */
export function calendarAt(user: UserPlan, t: number): CalendarEvent[] {
  let events = user.events;
  for (const edit of user.edits) if (edit.at <= t) events = edit.events;
  return events;
}

interface Wanted {
  start: number;
  end: number;
  kind: Kind;
  text: string;
  emoji: string;
}

/**
 * Everything that wants a status, as known at `asOf`: the calendar then in force and the
 * out-of-office scheduled by then. Calendar absences that touch or overlap are one absence
 * (one "until"); a scheduled one is worded on its own.
 */
function wantedAsOf(user: UserPlan, asOf: number): Wanted[] {
  const out: Wanted[] = [];
  const absences: Array<{ start: number; end: number }> = [];
  for (const e of calendarAt(user, asOf)) {
    const kind = kindOf(e);
    if (kind === undefined) continue;
    const span = eventSpan(e, user.tz);
    if (span.end <= span.start) continue;
    if (kind === "ooo") absences.push(span);
    else
      out.push({ ...span, kind, text: README_RULES[kind].text, emoji: README_RULES[kind].emoji });
  }
  absences.sort((a, b) => a.start - b.start);
  const merged: Array<{ start: number; end: number }> = [];
  for (const a of absences) {
    const last = merged[merged.length - 1];
    if (last && a.start <= last.end) last.end = Math.max(last.end, a.end);
    else merged.push({ ...a });
  }
  for (const o of user.ooo) if (o.scheduledAt <= asOf) merged.push({ start: o.start, end: o.end });
  for (const a of merged) {
    out.push({
      ...a,
      kind: "ooo",
      text: outOfOfficeWording(a.start, a.end, user.tz),
      emoji: README_RULES.ooo.emoji,
    });
  }
  return out;
}

/** The text and emoji the highest-ranked wish covering x asks for, or undefined for none. */
function shownAt(
  wanted: readonly Wanted[],
  x: number,
): { text: string; emoji: string } | undefined {
  const covering = wanted.filter((w) => w.start <= x && x < w.end);
  if (covering.length === 0) return undefined;
  const top = Math.max(...covering.map((w) => RANK[w.kind]));
  const best = covering.filter((w) => RANK[w.kind] === top);
  const texts = new Set(best.map((w) => `${w.text}\u0000${w.emoji}`));
  if (texts.size > 1) {
    // The README ranks kinds, not two wishes of one kind saying different things; the
    // scenario never plans that, so meeting it is a bug in the scenario, not the service.
    throw new Error(`oracle: ${[...texts].join(" / ")} both want ${new Date(x).toISOString()}`);
  }
  const w = best[0] as Wanted;
  return { text: w.text, emoji: w.emoji };
}

/**
 * The status that must show at t, ignoring manual statuses: the highest-ranked wish, expiring
 * when what shows next changes (so back-to-back equal statuses are one status, one expiry).
 */
export function expectedStatusAt(user: UserPlan, t: number): StatusValue {
  const wanted = wantedAsOf(user, t);
  const now = shownAt(wanted, t);
  if (now === undefined) return { ...EMPTY };
  const edges = [...new Set(wanted.flatMap((w) => [w.start, w.end]))]
    .filter((x) => x > t)
    .sort((a, b) => a - b);
  for (const x of edges) {
    const next = shownAt(wanted, x);
    if (next === undefined || next.text !== now.text || next.emoji !== now.emoji) {
      return { ...now, expiration: Math.floor(x / 1000) };
    }
  }
  throw new Error(`oracle: a status at ${new Date(t).toISOString()} that never ends`);
}

/** Equal as the profile shows them: an empty status has no meaningful expiration. */
export function sameShown(a: StatusValue, b: StatusValue): boolean {
  if (a.text !== b.text || a.emoji !== b.emoji) return false;
  return (a.text === "" && a.emoji === "") || a.expiration === b.expiration;
}

/** What a profile shows at t: a status whose expiration has passed is gone. */
export function shownOnProfile(
  status: StatusValue | undefined,
  t: number,
): StatusValue | undefined {
  if (status === undefined) return undefined;
  return status.expiration > 0 && status.expiration * 1000 <= t ? { ...EMPTY } : status;
}

/**
 * Every instant at which what the user should show may change: event edges in every version
 * of the calendar, edits, out-of-office scheduling and edges, and the user's own actions.
 */
export function changeInstants(user: UserPlan, until: number): number[] {
  const out = new Set<number>();
  for (const events of [user.events, ...user.edits.map((e) => e.events)]) {
    for (const e of events) {
      const span = eventSpan(e, user.tz);
      out.add(span.start);
      out.add(span.end);
    }
  }
  for (const e of user.edits) out.add(e.at);
  for (const o of user.ooo) {
    out.add(o.scheduledAt);
    out.add(o.start);
    out.add(o.end);
  }
  const m = user.manual;
  if (m) {
    out.add(m.at);
    if (m.status.expiration > 0) out.add(m.status.expiration * 1000);
    if (m.clearAt !== undefined) out.add(m.clearAt);
  }
  return [...out].filter((t) => t <= until).sort((a, b) => a - b);
}
