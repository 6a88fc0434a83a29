import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { timelineOf } from "#lib/app/status/desired-timeline";
import { silentLog } from "#lib/core/ports";
import type { OutOfOfficeRecord, TimelineRecord, UserSnapshot } from "#lib/core/records";
import { userRulesSchema } from "#lib/core/rules";
import { buildTimeline } from "#lib/core/timeline";
import type { Block, Occurrence } from "#lib/core/types";

/**
 * For random rules (custom statuses, keywords, calendars, video calls, skips, Do Not Disturb,
 * working hours) and random calendars, the merged timeline the reconcile follows (each source's
 * stored blocks, scheduled out-of-office, the stretches outside working hours) shows, in every
 * quarter hour, the status of a highest-priority event covering it, and shows nothing when none
 * does; and two touching blocks never show the same status (they would be one call).
 *
 * The oracle restates the rules plainly, slot by slot, without the code under test: titles are
 * words of a small vocabulary and keywords single words, so "whole word, any case" is a lookup.
 */

const M = 60_000;
const SLOT = 15 * M;
const DAY = 24 * 60 * M;
const T0 = Date.UTC(2026, 5, 1); // a Monday
const CHECKED_DAYS = 4;
const SOURCES = ["cal1", "cal2", "cal3"] as const;
const WORDS = ["lunch", "sync", "focus", "ooo", "review", "gym"] as const;
const TEXTS = ["A", "B"] as const;
const EMOJI = [":a:", ":b:"] as const;
const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
const BUILT_IN = { ooo: 30, focus: 20, meeting: 10 } as const;
type Kind = keyof typeof BUILT_IN;

interface Look {
  text: string;
  emoji: string;
  dnd: boolean;
}
interface CustomIn extends Look {
  name: string;
  priority: number;
  keywords: string[];
  calendars: string[];
  online?: boolean;
}
interface KindIn extends Look {
  keywords: string[];
}
interface RulesIn {
  ooo: KindIn;
  focus: KindIn;
  meeting: KindIn;
  custom: CustomIn[];
  skipNoGuests: boolean;
  skipCalendars: string[];
  workingHours?: Look & { days: string[]; start: string; end: string };
}
interface EventIn {
  source: string;
  words: string[];
  start: number;
  slots: number;
  allDay: boolean;
  guests: number;
  online: boolean;
  busy?: "OOF" | "FOCUS";
  transparent: boolean;
}

const look = fc.record({
  text: fc.constantFrom(...TEXTS),
  emoji: fc.constantFrom(...EMOJI),
  dnd: fc.boolean(),
});
const someOf = <T>(items: readonly T[], max: number) =>
  fc.uniqueArray(fc.constantFrom(...items), { maxLength: max });
const kindIn = fc
  .record({ keywords: someOf(WORDS, 2) })
  .chain((k) => look.map((l) => ({ ...l, ...k })));
const clock = fc.integer({ min: 0, max: 95 }).map((q) => {
  const minutes = q * 15;
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
});
const rulesIn: fc.Arbitrary<RulesIn> = fc.record(
  {
    ooo: kindIn,
    focus: kindIn,
    meeting: kindIn,
    custom: fc
      .array(
        fc.record(
          {
            // Low numbers, the built-ins' and the working hours' own (ties), and any.
            priority: fc.oneof(
              fc.integer({ min: 1, max: 9 }),
              fc.constantFrom(5, 10, 20, 30),
              fc.integer({ min: 1, max: 99 }),
            ),
            keywords: someOf(WORDS, 2),
            calendars: someOf(SOURCES, 2),
            online: fc.boolean(),
            look,
          },
          { requiredKeys: ["priority", "keywords", "calendars", "look"] },
        ),
        { maxLength: 5 },
      )
      .map((list) => list.map(({ look: l, ...c }, i) => ({ ...l, ...c, name: `S${i}` }))),
    skipNoGuests: fc.boolean(),
    skipCalendars: someOf(SOURCES, 1),
    workingHours: fc
      .record({
        days: fc.uniqueArray(fc.constantFrom(...WEEKDAYS), { minLength: 1, maxLength: 7 }),
        start: clock,
        end: clock,
        look,
      })
      .filter((w) => w.start !== w.end)
      .map(({ look: l, ...w }) => ({ ...l, ...w })),
  },
  { requiredKeys: ["ooo", "focus", "meeting", "custom", "skipNoGuests", "skipCalendars"] },
);
const eventIn: fc.Arbitrary<EventIn> = fc.record(
  {
    source: fc.constantFrom(...SOURCES),
    words: fc.array(fc.constantFrom(...WORDS, "with", "Bo"), { minLength: 1, maxLength: 3 }),
    start: fc.integer({ min: 0, max: 3 * 96 - 1 }),
    slots: fc.integer({ min: 1, max: 16 }),
    // One in ten events is all-day.
    allDay: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    guests: fc.integer({ min: 0, max: 2 }),
    online: fc.boolean(),
    busy: fc.constantFrom("OOF" as const, "FOCUS" as const),
    transparent: fc.boolean(),
  },
  {
    requiredKeys: [
      "source",
      "words",
      "start",
      "slots",
      "allDay",
      "guests",
      "online",
      "transparent",
    ],
  },
);

/** An occurrence as the providers make it (all-day ones from midnight to midnight). */
function occurrenceOf(e: EventIn, i: number): Occurrence {
  const start = e.allDay ? T0 + Math.floor((e.start * SLOT) / DAY) * DAY : T0 + e.start * SLOT;
  const end = e.allDay ? start + DAY : start + e.slots * SLOT;
  return {
    uid: `e${i}`,
    start,
    end,
    allDay: e.allDay,
    summary: e.words.map((w, j) => (j % 2 === 0 ? w.toUpperCase() : w)).join(" "),
    attendeeCount: e.guests + 1,
    guests: e.guests,
    ...(e.online ? { online: true } : {}),
    ...(e.busy !== undefined ? { busyStatus: e.busy } : {}),
    ...(e.transparent ? { transp: "TRANSPARENT" } : {}),
  };
}

/** What one event shows, restated: a status and its priority, or nothing. */
function oracleOf(
  e: EventIn,
  r: RulesIn,
): { priority: number; look: Look; ooo: boolean } | undefined {
  if (r.skipCalendars.includes(e.source)) return undefined;
  const native: Kind | undefined =
    e.busy === "OOF" ? "ooo" : e.busy === "FOCUS" ? "focus" : undefined;
  if (e.transparent && native === undefined) return undefined;
  const has = (k: string) => e.words.includes(k);
  type Found = { priority: number; look: Look; kind?: Kind };
  const found: Found[] = [];
  for (const c of r.custom) {
    const byWord = c.keywords.length === 0 ? !e.allDay : c.keywords.some(has);
    const byCalendar = c.calendars.length === 0 || c.calendars.includes(e.source);
    const byCall = c.online === undefined || c.online === e.online;
    if (byWord && byCalendar && byCall) found.push({ priority: c.priority, look: c });
  }
  for (const kind of ["ooo", "focus", "meeting"] as const) {
    if (e.allDay && kind !== "ooo") continue;
    if (native === kind || r[kind].keywords.some(has)) {
      found.push({ priority: BUILT_IN[kind], look: r[kind], kind });
    }
  }
  // The highest number; on a tie the first found (the person's statuses come first).
  let best = found.reduce<Found | undefined>(
    (b, f) => (b === undefined || f.priority > b.priority ? f : b),
    undefined,
  );
  if (best === undefined && !e.allDay) best = { priority: 10, look: r.meeting, kind: "meeting" };
  if (best === undefined) return undefined;
  if (r.skipNoGuests && best.kind === "meeting" && e.guests === 0) return undefined;
  return { priority: best.priority, look: best.look, ooo: best.kind === "ooo" };
}

/** Whether the instant is inside the working hours, restated in wall-clock minutes. */
function working(at: number, offsetMin: number, w: NonNullable<RulesIn["workingHours"]>): boolean {
  const local = at + offsetMin * M;
  const dayStart = Math.floor(local / DAY) * DAY;
  const minute = (local - dayStart) / M;
  const weekday = (ms: number) => WEEKDAYS[(new Date(ms).getUTCDay() + 6) % 7] as string;
  const [sh, sm] = w.start.split(":").map(Number) as [number, number];
  const [eh, em] = w.end.split(":").map(Number) as [number, number];
  const start = sh * 60 + sm;
  const end = eh * 60 + em;
  const today = w.days.includes(weekday(dayStart));
  const yesterday = w.days.includes(weekday(dayStart - DAY));
  return start < end
    ? today && minute >= start && minute < end
    : (today && minute >= start) || (yesterday && minute < end);
}

const sameLook = (a: Look, b: Block) => a.emoji === b.emoji && a.dnd === (b.dnd === true);

/** Plain checks in the slot loop: an `expect` per slot would cost more than the code checked. */
const fail = (message: string): never => {
  throw new Error(message);
};

describe("the merged timeline under a person's own rules", () => {
  it("shows a highest-priority status in every quarter hour, and equal touching statuses as one block", () => {
    fc.assert(
      fc.property(
        rulesIn,
        fc.array(eventIn, { maxLength: 14 }),
        fc.constantFrom(["UTC", 0] as const, ["Asia/Kolkata", 330] as const),
        fc.option(
          fc.record({
            start: fc.integer({ min: 0, max: 300 }),
            slots: fc.integer({ min: 1, max: 20 }),
          }),
        ),
        (rules, events, [tz, offsetMin], away) => {
          // Prepare: each source's timeline as the sync stores it, then the user as stored.
          const parsed = userRulesSchema.parse(rules);
          const timelines: TimelineRecord[] = SOURCES.map((sourceId) => ({
            key: { team: "T1", user: "U1" },
            sourceId,
            blocks: buildTimeline(
              events
                .map(occurrenceOf)
                .filter((_o, i) => events[i]?.source === sourceId)
                .map((o) => ({ ...o, sourceId })),
              { rules: parsed, tz, from: T0 - DAY, to: T0 + 5 * DAY },
            ),
            version: 1,
            updatedAt: T0,
          }));
          const ooo: OutOfOfficeRecord[] =
            away === null
              ? []
              : [
                  {
                    key: { team: "T1", user: "U1" },
                    id: "away",
                    createdAt: T0,
                    start: T0 + away.start * SLOT,
                    end: T0 + (away.start + away.slots) * SLOT,
                    text: "Away",
                    emoji: ":x:",
                  },
                ];
          const snap: UserSnapshot = {
            user: {
              key: { team: "T1", user: "U1" },
              tz,
              tokenSealed: "sealed",
              emails: [],
              sources: SOURCES.map((id) => ({ id, kind: "ics" as const })),
              rules: rules as unknown as Record<string, unknown>,
              mode: "auto",
              version: 1,
              updatedAt: T0,
            },
            timelines,
            ooo,
          };
          // Act
          const timeline = timelineOf(silentLog, snap, T0);
          // Assess: slot by slot against the restatement.
          const restated = events.map((e, i) => ({
            o: occurrenceOf(e, i),
            shows: oracleOf(e, rules),
          }));
          for (let at = T0 + SLOT / 2; at < T0 + CHECKED_DAYS * DAY; at += SLOT) {
            const wanted: Array<{ priority: number; look: Look; prefix: boolean }> = [];
            for (const { o, shows } of restated) {
              if (shows === undefined || !(o.start <= at && at < o.end)) continue;
              wanted.push({ priority: shows.priority, look: shows.look, prefix: shows.ooo });
            }
            if (away !== null && ooo[0] && ooo[0].start <= at && at < ooo[0].end) {
              const look = { text: "Away", emoji: ":x:", dnd: rules.ooo.dnd };
              wanted.push({ priority: 30, look, prefix: true });
            }
            const w = rules.workingHours;
            if (w !== undefined && !working(at, offsetMin, w)) {
              wanted.push({ priority: 5, look: w, prefix: false });
            }
            const shown = timeline.find((b) => b.start <= at && at < b.end);
            const when = new Date(at).toISOString();
            if (wanted.length === 0) {
              if (shown !== undefined) fail(`at ${when} nothing, not ${JSON.stringify(shown)}`);
              continue;
            }
            const top = Math.max(...wanted.map((x) => x.priority));
            const acceptable = wanted.filter((x) => x.priority === top);
            const ok = acceptable.some(
              (x) =>
                shown !== undefined &&
                sameLook(x.look, shown) &&
                (x.prefix
                  ? shown.text.startsWith(`${x.look.text} until `)
                  : shown.text === x.look.text),
            );
            if (!ok)
              fail(`at ${when} ${JSON.stringify(shown)} is none of ${JSON.stringify(acceptable)}`);
          }
          for (let i = 1; i < timeline.length; i++) {
            const a = timeline[i - 1] as Block;
            const b = timeline[i] as Block;
            expect(b.start).toBeGreaterThanOrEqual(a.end);
            const same =
              a.text === b.text && a.emoji === b.emoji && (a.dnd === true) === (b.dnd === true);
            expect(same && a.end === b.start, "two touching blocks with one status").toBe(false);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
