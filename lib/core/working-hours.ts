import { toEpochSeconds } from "./clock";
import { OFF_HOURS_PRIORITY, WEEKDAYS, type WorkingHours } from "./rules-schema";
import type { Block } from "./types";
import { zonedToEpoch, zoneOffsetMs } from "./zoned-time";

/**
 * The stretches outside a person's working hours, as blocks: one for each stretch, from the end
 * of one working day to the start of the next (Friday 17:30 to Monday 09:00 is one block, so one
 * call), at OFF_HOURS_PRIORITY, so out of office and every other block show over it.
 *
 * They depend only on the rules, the zone and the time, so they are not stored: the desired
 * timeline makes them for OFF_HOURS_HORIZON_MS ahead each time it is built. Each one's start is
 * a block start, so the reconcile wakes there (schedule.ts) and builds the next ones then.
 */

const DAY = 86_400_000;
/** How far ahead the stretches are made: more than the longest stretch (6 days and a bit). */
export const OFF_HOURS_HORIZON_MS = 8 * DAY;

const minutesOf = (hhmm: string): number => {
  const [h, m] = hhmm.split(":");
  return Number(h) * 60 + Number(m);
};

interface Interval {
  start: number;
  end: number;
}

/**
 * Working intervals already worked out, by zone, hours and day: the timeline is rebuilt at every
 * reconcile, and each interval costs two zone look-ups (Intl), the bulk of the work here. Bounded
 * like zoned-time.ts's formatters.
 */
const intervals = new Map<string, Interval>();
const MAX_INTERVALS = 5000;

/** The working interval of each local day, or undefined on a day off. */
function workingDay(wh: WorkingHours, tz: string): (day: number) => Interval | undefined {
  const days = new Set(wh.days);
  const start = minutesOf(wh.start);
  const end = minutesOf(wh.end);
  const at = (day: number, minutes: number) => {
    const d = new Date(day);
    const local = { y: d.getUTCFullYear(), m: d.getUTCMonth() + 1, d: d.getUTCDate() };
    return zonedToEpoch({ ...local, hh: Math.floor(minutes / 60), mm: minutes % 60 }, tz);
  };
  // `day`: the UTC midnight of the local date. getUTCDay: 0 is Sunday; WEEKDAYS starts on Monday.
  return (day) => {
    const weekday = WEEKDAYS[(new Date(day).getUTCDay() + 6) % 7];
    if (weekday === undefined || !days.has(weekday)) return undefined;
    const key = `${tz}|${start}|${end}|${day}`;
    const known = intervals.get(key);
    if (known !== undefined) return known;
    // An end before the start ends the next day (a night shift).
    const interval = { start: at(day, start), end: at(end > start ? day : day + DAY, end) };
    if (intervals.size >= MAX_INTERVALS) intervals.clear();
    intervals.set(key, interval);
    return interval;
  };
}

/**
 * The off-hours blocks that overlap [from, to), each whole (it may start before `from` and end
 * after `to`). Empty without working hours. Only the working days that bound them are read:
 * back to the last one starting by `from`, on to the first one starting at or after `to`.
 */
export function offHoursBlocks(
  wh: WorkingHours | undefined,
  tz: string,
  from: number,
  to: number,
): Block[] {
  if (wh === undefined || wh.days.length === 0 || to <= from) return [];
  const intervalOn = workingDay(wh, tz);
  const local = from + zoneOffsetMs(from, tz);
  const today = local - (((local % DAY) + DAY) % DAY);
  // A working day comes at least once a week, so both searches end within 8 days of their edge.
  let back = 0;
  let first: Interval | undefined;
  for (; back >= -8 && first === undefined; back--) {
    const w = intervalOn(today + back * DAY);
    if (w !== undefined && w.start <= from) first = w;
  }
  if (first === undefined) return [];
  const work: Interval[] = [first];
  const last = 9 + Math.ceil((to - from) / DAY);
  for (let day = back + 2; day <= last; day++) {
    const w = intervalOn(today + day * DAY);
    if (w === undefined) continue;
    work.push(w);
    if (w.start >= to) break;
  }
  const blocks: Block[] = [];
  for (let i = 0; i + 1 < work.length; i++) {
    const start = (work[i] as Interval).end;
    const end = (work[i + 1] as Interval).start;
    if (!(end > start && end > from && start < to)) continue;
    blocks.push({
      start,
      end,
      kind: "offHours",
      text: wh.text,
      emoji: wh.emoji,
      expiration: toEpochSeconds(end),
      priority: OFF_HOURS_PRIORITY,
      ...(wh.dnd ? { dnd: true } : {}),
    });
  }
  return blocks;
}
