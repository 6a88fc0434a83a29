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

/** The working intervals of the local days from `firstDay` (UTC midnight of its date), `count` days. */
function workingIntervals(wh: WorkingHours, tz: string, firstDay: number, count: number) {
  const days = new Set(wh.days);
  const start = minutesOf(wh.start);
  const end = minutesOf(wh.end);
  const intervals: Array<{ start: number; end: number }> = [];
  for (let i = 0; i < count; i++) {
    const date = new Date(firstDay + i * DAY);
    // getUTCDay: 0 is Sunday; WEEKDAYS starts on Monday.
    const weekday = WEEKDAYS[(date.getUTCDay() + 6) % 7];
    if (weekday === undefined || !days.has(weekday)) continue;
    const at = (offsetDays: number, minutes: number) => {
      const d = new Date(firstDay + (i + offsetDays) * DAY);
      const local = { y: d.getUTCFullYear(), m: d.getUTCMonth() + 1, d: d.getUTCDate() };
      return zonedToEpoch({ ...local, hh: Math.floor(minutes / 60), mm: minutes % 60 }, tz);
    };
    // An end before the start ends the next day (a night shift).
    intervals.push({ start: at(0, start), end: at(end > start ? 0 : 1, end) });
  }
  return intervals;
}

/**
 * The off-hours blocks that overlap [from, to), each whole (it may start before `from` and end
 * after `to`). Empty without working hours.
 */
export function offHoursBlocks(
  wh: WorkingHours | undefined,
  tz: string,
  from: number,
  to: number,
): Block[] {
  if (wh === undefined || wh.days.length === 0 || to <= from) return [];
  // Working days around the window, so the stretches that cross its edges are whole: the
  // longest stretch is under 8 days (one working day a week).
  const localMidnight = (ms: number) => {
    const local = ms + zoneOffsetMs(ms, tz);
    return local - (((local % DAY) + DAY) % DAY);
  };
  const firstDay = localMidnight(from) - 8 * DAY;
  const count = Math.round((localMidnight(to) - firstDay) / DAY) + 9;
  const work = workingIntervals(wh, tz, firstDay, count).sort((a, b) => a.start - b.start);
  const blocks: Block[] = [];
  for (let i = 0; i + 1 < work.length; i++) {
    const start = (work[i] as { end: number }).end;
    const end = (work[i + 1] as { start: number }).start;
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
