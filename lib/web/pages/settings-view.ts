import {
  DAY_MS,
  ianaZone,
  UTC_ZONE,
  utcToWall,
  type ZoneRules,
  zonedMidnight,
} from "#lib/calendar/zones";
import { explainDay } from "#lib/core/explain";
import type { TooLargeMark } from "#lib/core/records";
import type { UserRules } from "#lib/core/rules";
import { desiredAt, nextTransitionAfter } from "#lib/core/timeline";
import type { Block, Occurrence } from "#lib/core/types";
import type { EventWhyView, RulesView, TodayView } from "./view-model";

/**
 * The parts of the settings view that need arithmetic: the day in the user's zone, what shows
 * now and next, and the out-of-office form's dates read in that zone. A zone the runtime does
 * not know is read as UTC, as on the page.
 */

const zoneOf = (tz: string): ZoneRules => ianaZone(tz) ?? UTC_ZONE;

/** [midnight, next midnight) of the day containing `at`, in `tz` (23 or 25 hours on DST days). */
export function dayIn(at: number, tz: string): { start: number; end: number } {
  const zone = zoneOf(tz);
  const wall = new Date(utcToWall(at, zone));
  const [y, m, d] = [wall.getUTCFullYear(), wall.getUTCMonth() + 1, wall.getUTCDate()];
  const next = new Date(Date.UTC(y, m - 1, d) + DAY_MS);
  return {
    start: zonedMidnight(y, m, d, zone),
    end: zonedMidnight(next.getUTCFullYear(), next.getUTCMonth() + 1, next.getUTCDate(), zone),
  };
}

/** Today's blocks (cut to the day), the status showing at `now`, and the next change. */
export function todayView(timeline: readonly Block[], now: number, tz: string): TodayView {
  const day = dayIn(now, tz);
  const blocks = [...timeline]
    .filter((b) => b.start < day.end && b.end > day.start)
    .sort((a, b) => a.start - b.start)
    .map((b) => ({
      start: Math.max(b.start, day.start),
      end: Math.min(b.end, day.end),
      text: b.text,
      emoji: b.emoji,
      kind: b.kind,
    }));
  const all = [...timeline];
  const current = desiredAt(all, now);
  const nextAt = nextTransitionAfter(all, now);
  const nextBlock = nextAt === undefined ? undefined : desiredAt(all, nextAt);
  return {
    blocks,
    ...(current
      ? { current: { text: current.text, emoji: current.emoji, until: current.end } }
      : {}),
    ...(nextAt !== undefined
      ? {
          next: {
            at: nextAt,
            ...(nextBlock ? { status: { text: nextBlock.text, emoji: nextBlock.emoji } } : {}),
          },
        }
      : {}),
  };
}

/**
 * Today's events (`occurrences`, each stamped with its calendar), with what each shows and why
 * (lib/core/explain.ts), each calendar in the reasons named as the page names it (`names`:
 * source id → name).
 */
export function todayEventsView(
  occurrences: readonly Occurrence[],
  rules: UserRules,
  now: number,
  tz: string,
  names: ReadonlyMap<string, string>,
): EventWhyView[] {
  const day = dayIn(now, tz);
  return explainDay(occurrences, rules, tz, day.start, day.end).map((e) => {
    const name = e.sourceId !== undefined ? names.get(e.sourceId) : undefined;
    const rule =
      e.sourceId !== undefined && name !== undefined
        ? e.rule.replace(`calendar ${e.sourceId}`, `calendar ${name}`)
        : e.rule;
    return {
      start: e.start,
      end: e.end,
      allDay: e.allDay,
      title: e.title,
      ...(e.status !== undefined ? { status: { text: e.status.text, emoji: e.status.emoji } } : {}),
      rule,
    };
  });
}

export function rulesView(rules: UserRules): RulesView {
  const kind = (k: keyof Pick<UserRules, "ooo" | "focus" | "meeting">) => ({
    text: rules[k].text,
    emoji: rules[k].emoji,
    keywords: [...rules[k].keywords],
    dnd: rules[k].dnd,
  });
  return {
    kinds: { meeting: kind("meeting"), focus: kind("focus"), ooo: kind("ooo") },
    showTitles: rules.showTitles,
    skipTentative: rules.skipTentative,
    custom: rules.custom.map((c) => ({
      ...c,
      keywords: [...c.keywords],
      calendars: [...c.calendars],
    })),
    skipNoGuests: rules.skipNoGuests,
    skipCalendars: [...rules.skipCalendars],
    ...(rules.workingHours !== undefined
      ? { workingHours: { ...rules.workingHours, days: [...rules.workingHours.days] } }
      : {}),
    standing: rules.standing,
  };
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The out-of-office form's first and last day (`YYYY-MM-DD`, inclusive) as instants in `tz`:
 * from midnight of the first day to midnight after the last. Undefined for a date that does not
 * exist or a last day before the first.
 */
export function oooDayRange(
  firstDay: string,
  lastDay: string,
  tz: string,
): { start: number; end: number } | undefined {
  const first = parseDate(firstDay);
  const last = parseDate(lastDay);
  if (!first || !last || last < first) return undefined;
  const zone = zoneOf(tz);
  const after = new Date(last + DAY_MS);
  const from = new Date(first);
  return {
    start: zonedMidnight(from.getUTCFullYear(), from.getUTCMonth() + 1, from.getUTCDate(), zone),
    end: zonedMidnight(after.getUTCFullYear(), after.getUTCMonth() + 1, after.getUTCDate(), zone),
  };
}

/** A real calendar date as UTC midnight, or undefined (2025-02-30 is not one). */
function parseDate(value: string): number | undefined {
  const m = ISO_DATE.exec(value);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const at = Date.UTC(y, mo - 1, d);
  // A day past the month's end (or 00) rolls into another month.
  if (y < 1970 || new Date(at).getUTCMonth() !== mo - 1) return undefined;
  return at;
}

const count = (n: number): string => new Intl.NumberFormat("en-GB").format(n);

/** Why a calendar is not read in full, in words for its owner (beside it on the page). */
export function tooLargeProblem(mark: TooLargeMark): string {
  switch (mark.limit) {
    case "bytes":
      return `This calendar is larger than ${count(Math.round(mark.cap / 1024 / 1024))} MB, so it is not read: nothing of it shows in your status.`;
    case "event_occurrences":
      return `This calendar is too large to read in full: an event in it repeats more than ${count(mark.cap)} times in two weeks. Only its first ${count(mark.cap)} are used.`;
    case "feed_occurrences":
      return `This calendar is too large to read in full: it has more than ${count(mark.cap)} events in the next two weeks. Only the first ${count(mark.cap)} are used.`;
    case "time_budget":
      return `This calendar is too large to read in full: reading it takes more than ${count(mark.cap / 1000)} seconds. Only what was read in that time is used.`;
  }
}
