import { DEFAULT_RULES, outOfOfficeText } from "../../lib/core/rules";
import { buildTimeline, desiredAt, resolveSegments, type Segment } from "../../lib/core/timeline";
import type { Block, Occurrence, StatusValue } from "../../lib/core/types";

/** A seeded random source, so a soak run replays exactly. */
export interface Rng {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/** mulberry32. */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)] as (typeof items)[number],
    chance: (p) => next() < p,
  };
}

const MIN = 60_000;

export interface SoakShape {
  users: number;
  seed: number;
  /** Epoch ms: faults start, meetings begin shortly after. */
  dayStart: number;
  /** Epoch ms: faults stop. */
  faultsOffAt: number;
  /** How long after the faults stop every profile must equal the desired status. */
  settleMs: number;
}

export interface CalendarEvent {
  uid: string;
  title: string;
  start: number;
  end: number;
  sequence: number;
  cancelled: boolean;
}

export type EditKind = "cancel_showing" | "shorten_showing" | "move_future";

export interface CalendarEdit {
  at: number;
  kind: EditKind;
  uid: string;
  /** The whole calendar after the edit. */
  events: CalendarEvent[];
}

export interface OutOfOfficePlan {
  scheduledAt: number;
  start: number;
  end: number;
}

export interface ManualPlan {
  at: number;
  status: StatusValue;
  /** The user clears it themselves at this instant, before it expires. */
  clearAt?: number;
}

export interface UserPlan {
  id: string;
  tz: string;
  /** The calendar as it is at the start. */
  events: CalendarEvent[];
  edits: CalendarEdit[];
  ooo: OutOfOfficePlan[];
  manual?: ManualPlan;
}

export interface Scenario {
  shape: SoakShape;
  team: string;
  users: UserPlan[];
  /** The user whose transition worker dies after the service accepted its write. */
  crash: { user: string; after: number };
}

const ZONES = ["UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo"] as const;
const DURATIONS_MIN = [15, 30, 30, 45, 60, 90] as const;

const floorTo = (ms: number, step: number) => Math.floor(ms / step) * step;

/** Generates the day: calendars, their edits, scheduled out-of-office and manual statuses. */
export function generateScenario(shape: SoakShape): Scenario {
  const rng = seededRng(shape.seed);
  const span = shape.faultsOffAt - shape.dayStart;
  const users: UserPlan[] = [];
  for (let i = 1; i <= shape.users; i++) {
    const id = `U${String(i).padStart(4, "0")}`;
    const count = rng.int(
      Math.max(2, Math.round(span / (90 * MIN))),
      Math.round(span / (60 * MIN)) + 2,
    );
    const events: CalendarEvent[] = [];
    for (let n = 0; n < count; n++) {
      const start = floorTo(shape.dayStart + 10 * MIN + rng.next() * (span + 20 * MIN), 5 * MIN);
      const focus = rng.chance(0.15);
      events.push({
        uid: `${id}-e${n}@soak.statuspilot`,
        title: focus ? "Focus time" : rng.pick(["Standup", "1:1", "Design review", "Planning"]),
        start,
        end: start + rng.pick(DURATIONS_MIN) * MIN,
        sequence: 0,
        cancelled: false,
      });
    }
    events.sort((a, b) => a.start - b.start);
    const plan: UserPlan = { id, tz: rng.pick(ZONES), events, edits: [], ooo: [] };
    // Roles by position, so every run of every size has each kind of disturbance.
    if (i % 4 === 1) plan.manual = manualPlan(rng, shape);
    else if (i % 8 === 2) plan.ooo.push(oooPlan(rng, shape));
    if (i % 3 === 0) {
      const kinds: EditKind[] = [
        "cancel_showing",
        "shorten_showing",
        "cancel_showing",
        "move_future",
      ];
      const edit = editPlan(rng, shape, events, kinds[(i / 3) % kinds.length] as EditKind);
      if (edit) plan.edits.push(edit);
    }
    users.push(plan);
  }
  // The crash hits a user with no manual status, at a set after the middle of the day.
  const victim =
    users.find(
      (u) => !u.manual && u.edits.length === 0 && u.events.some((e) => e.start > mid(shape)),
    ) ?? users[0];
  return {
    shape,
    team: "T0SOAK",
    users,
    crash: { user: victim?.id ?? "U0001", after: mid(shape) },
  };
}

const mid = (shape: SoakShape) => floorTo((shape.dayStart + shape.faultsOffAt) / 2, MIN);

function manualPlan(rng: Rng, shape: SoakShape): ManualPlan {
  const latest = shape.faultsOffAt - 70 * MIN;
  const at =
    shape.dayStart +
    20 * MIN +
    Math.floor(rng.next() * Math.max(MIN, latest - shape.dayStart - 20 * MIN));
  const atS = Math.floor(at / 1000);
  const lengthMin = rng.int(20, 60);
  const status = rng.pick([
    { text: "Lunch", emoji: ":sandwich:" },
    { text: "Commuting", emoji: ":bus:" },
    { text: "Doctor", emoji: ":hospital:" },
  ]);
  return {
    at: at - (at % 1000) + 7_000,
    status: { ...status, expiration: atS + lengthMin * 60 },
    ...(rng.chance(0.5) ? { clearAt: at + rng.int(5, lengthMin - 5) * MIN } : {}),
  };
}

function oooPlan(rng: Rng, shape: SoakShape): OutOfOfficePlan {
  const span = shape.faultsOffAt - shape.dayStart;
  const scheduledAt = shape.dayStart + 5 * MIN + floorTo(rng.next() * span * 0.3, MIN) + 13_000;
  const start = floorTo(scheduledAt, MIN) + rng.int(20, 60) * MIN;
  const end = Math.min(start + rng.int(30, 120) * MIN, shape.faultsOffAt + 30 * MIN);
  return { scheduledAt, start, end };
}

function editPlan(
  rng: Rng,
  shape: SoakShape,
  events: CalendarEvent[],
  kind: EditKind,
): CalendarEdit | undefined {
  const candidates = events.filter(
    (e) => e.start > shape.dayStart + 30 * MIN && e.end < shape.faultsOffAt - 5 * MIN,
  );
  if (candidates.length === 0) return undefined;
  const target = rng.pick(candidates);
  const showingAt = floorTo(target.start + (target.end - target.start) / 2, MIN) + 21_000;
  const next = events.map((e) => ({ ...e }));
  const edited = next.find((e) => e.uid === target.uid) as CalendarEvent;
  edited.sequence += 1;
  let at = showingAt;
  if (kind === "cancel_showing") edited.cancelled = true;
  else if (kind === "shorten_showing") edited.end = floorTo(showingAt, MIN) + 5 * MIN;
  else {
    at = target.start - 30 * MIN + 21_000;
    edited.start += 60 * MIN;
    edited.end += 60 * MIN;
  }
  return { at, kind, uid: target.uid, events: next };
}

const icsUtc = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

/** The feed as a provider would serve it: UTC times, cancelled events kept with STATUS. */
export function renderIcs(events: readonly CalendarEvent[], stampedAt: number): string {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//statuspilot//soak//EN"];
  for (const e of events) {
    lines.push(
      "BEGIN:VEVENT",
      `UID:${e.uid}`,
      `DTSTAMP:${icsUtc(stampedAt)}`,
      `DTSTART:${icsUtc(e.start)}`,
      `DTEND:${icsUtc(e.end)}`,
      `SUMMARY:${e.title}`,
      `SEQUENCE:${e.sequence}`,
      `STATUS:${e.cancelled ? "CANCELLED" : "CONFIRMED"}`,
      "END:VEVENT",
    );
  }
  lines.push("END:VCALENDAR");
  return `${lines.join("\r\n")}\r\n`;
}

const toOccurrence = (e: CalendarEvent): Occurrence => ({
  uid: e.uid,
  start: e.start,
  end: e.end,
  allDay: false,
  summary: e.title,
  ...(e.cancelled ? { status: "CANCELLED" } : {}),
  attendeeCount: 2,
});

/** The calendar in force at instant t (edits apply from their instant on). */
export function calendarAt(user: UserPlan, t: number): CalendarEvent[] {
  let events = user.events;
  for (const edit of user.edits) if (edit.at <= t) events = edit.events;
  return events;
}

/**
 * The ground truth: the timeline the user's calendar and scheduled out-of-office ask for at
 * instant t, built from the plan (not from anything the system stored).
 */
export function desiredTimelineAt(user: UserPlan, t: number): Block[] {
  const blocks = buildTimeline(calendarAt(user, t).map(toOccurrence), {
    rules: DEFAULT_RULES,
    tz: user.tz,
    from: t - 86_400_000,
    to: t + 86_400_000,
  });
  const segments: Segment[] = [...blocks];
  for (const o of user.ooo) {
    if (o.scheduledAt > t) continue;
    segments.push({
      start: o.start,
      end: o.end,
      kind: "ooo",
      // As the reconciler words it: the date is left out when the block ends the day it starts.
      text: outOfOfficeText(DEFAULT_RULES.ooo.text, o.end, user.tz, undefined, o.start),
      emoji: DEFAULT_RULES.ooo.emoji,
    });
  }
  return resolveSegments(segments, { bridgeGapMinutes: DEFAULT_RULES.bridgeGapMinutes });
}

/** The status the user should show at t, ignoring manual statuses (empty when none). */
export function desiredStatusAt(user: UserPlan, t: number): StatusValue {
  const block = desiredAt(desiredTimelineAt(user, t), t);
  return block === undefined
    ? { text: "", emoji: "", expiration: 0 }
    : { text: block.text, emoji: block.emoji, expiration: block.expiration };
}

/** Every instant at which the user's desired status may change, for the double-write check. */
export function changeInstants(user: UserPlan, until: number): number[] {
  const out = new Set<number>();
  for (const t of [user.events, ...user.edits.map((e) => e.events)].flatMap((evs) =>
    evs.flatMap((e) => [e.start, e.end]),
  ))
    out.add(t);
  for (const e of user.edits) out.add(e.at);
  for (const o of user.ooo) {
    out.add(o.scheduledAt);
    out.add(o.start);
    out.add(o.end);
  }
  if (user.manual) {
    out.add(user.manual.at);
    out.add(user.manual.status.expiration * 1000);
    if (user.manual.clearAt !== undefined) out.add(user.manual.clearAt);
  }
  return [...out].filter((t) => t <= until).sort((a, b) => a - b);
}
