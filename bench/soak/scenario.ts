import type { StatusValue } from "#lib/core/types";

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
  /** Epoch ms. All-day: the UTC midnight of its first date (a date, not an instant). */
  start: number;
  /** Epoch ms, exclusive. All-day: the UTC midnight of the date after its last. */
  end: number;
  sequence: number;
  cancelled: boolean;
  /** `DTSTART;VALUE=DATE`: whole days of the user's own zone. */
  allDay?: boolean;
  /** The user's own answer to the invitation (their ATTENDEE's PARTSTAT). */
  partstat?: "ACCEPTED" | "TENTATIVE" | "DECLINED";
  /** `STATUS:TENTATIVE` on the event itself. */
  tentative?: boolean;
  /** `TRANSP:TRANSPARENT`: shown as free. */
  transparent?: boolean;
  /** `CLASS:PRIVATE`. */
  private?: boolean;
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
  /** Expiration 0: the status never expires; only the user's clear ends it. */
  status: StatusValue;
  /** The user clears it themselves at this instant, before it expires. */
  clearAt?: number;
  /** The clear's `user_change` never reaches Statuspilot (the relay loses it on purpose). */
  loseClearEvent?: boolean;
  /** The set leaves `status_expiration` out, which means "never expires" too (spec 3). */
  omitExpiration?: boolean;
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
const MEETING_TITLES = ["Standup", "1:1 with Dana", "Design review", "Planning"] as const;
const FOCUS_TITLES = ["Focus time", "Deep work"] as const;
const MANUAL_STATUSES = [
  { text: "Lunch", emoji: ":sandwich:" },
  { text: "Commuting", emoji: ":bus:" },
  { text: "Doctor", emoji: ":hospital:" },
] as const;

/**
 * Invitation details in turn over every event of the day, so every run of every size has
 * each: 4 in 16 set no status (tentative twice, declined, transparent), one is private.
 */
const FLAVOURS: ReadonlyArray<Partial<CalendarEvent>> = [
  {},
  { partstat: "ACCEPTED" },
  {},
  { partstat: "TENTATIVE" },
  {},
  { private: true, partstat: "ACCEPTED" },
  {},
  { partstat: "DECLINED" },
  {},
  {},
  { transparent: true },
  {},
  { tentative: true },
  {},
  {},
  {},
];

/** The user's address, as their calendar's ATTENDEE lines and their registration name it. */
export const emailOf = (user: string) => `${user.toLowerCase()}@soak.example`;

/** The UTC midnight of the date it is at instant ms in the zone (all-day events are dates). */
function dateIn(ms: number, tz: string): number {
  const [y, m, d] = new Intl.DateTimeFormat("en-CA", {
    timeZone: tz,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  })
    .format(ms)
    .split("-")
    .map(Number);
  return Date.UTC(y as number, (m as number) - 1, d as number);
}

const floorTo = (ms: number, step: number) => Math.floor(ms / step) * step;

/** Generates the day: calendars, their edits, scheduled out-of-office and manual statuses. */
export function generateScenario(shape: SoakShape): Scenario {
  const rng = seededRng(shape.seed);
  const span = shape.faultsOffAt - shape.dayStart;
  const users: UserPlan[] = [];
  let flavour = 0;
  for (let i = 1; i <= shape.users; i++) {
    const id = `U${String(i).padStart(4, "0")}`;
    const tz = rng.pick(ZONES);
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
        title: focus ? rng.pick(FOCUS_TITLES) : rng.pick(MEETING_TITLES),
        start,
        end: start + rng.pick(DURATIONS_MIN) * MIN,
        sequence: 0,
        cancelled: false,
        ...FLAVOURS[flavour++ % FLAVOURS.length],
      });
    }
    // Roles by position, so every run of every size has each kind of disturbance.
    const scheduledOoo = i % 8 === 2;
    if (!scheduledOoo && i % 25 === 12) {
      // A day of leave in the user's zone, the day that is local 3 h before the faults stop:
      // in Tokyo it ends during the simulated day.
      const date = dateIn(shape.faultsOffAt - 180 * MIN, tz);
      events.push(allDay(`${id}-leave@soak.statuspilot`, "Annual leave", date));
    } else if (!scheduledOoo && i % 10 === 7) {
      const start = floorTo(shape.dayStart + 20 * MIN + rng.next() * span * 0.7, 5 * MIN);
      events.push({
        uid: `${id}-away@soak.statuspilot`,
        title: "OOO - school run",
        start,
        end: start + rng.int(4, 8) * 15 * MIN,
        sequence: 0,
        cancelled: false,
      });
    }
    if (i % 25 === 20) {
      const date = dateIn(shape.dayStart + span / 2, tz);
      events.push(allDay(`${id}-offsite@soak.statuspilot`, "Team offsite", date));
    }
    events.sort((a, b) => a.start - b.start);
    const plan: UserPlan = { id, tz, events, edits: [], ooo: [] };
    if (i % 4 === 1)
      plan.manual =
        i % 8 === 5 ? lastingManualPlan(rng, shape, i % 16 === 5) : manualPlan(rng, shape);
    else if (scheduledOoo) plan.ooo.push(oooPlan(rng, shape));
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
      (u) =>
        !u.manual &&
        u.edits.length === 0 &&
        !u.events.some((e) => e.allDay) &&
        u.events.some((e) => e.start > mid(shape)),
    ) ?? users[0];
  return {
    shape,
    team: "T0SOAK",
    users,
    crash: { user: victim?.id ?? "U0001", after: mid(shape) },
  };
}

const mid = (shape: SoakShape) => floorTo((shape.dayStart + shape.faultsOffAt) / 2, MIN);

const allDay = (uid: string, title: string, date: number): CalendarEvent => ({
  uid,
  title,
  start: date,
  end: date + 86_400_000,
  sequence: 0,
  cancelled: false,
  allDay: true,
});

function manualPlan(rng: Rng, shape: SoakShape): ManualPlan {
  const latest = shape.faultsOffAt - 70 * MIN;
  const at =
    shape.dayStart +
    20 * MIN +
    Math.floor(rng.next() * Math.max(MIN, latest - shape.dayStart - 20 * MIN));
  const atS = Math.floor(at / 1000);
  const lengthMin = rng.int(20, 60);
  const status = rng.pick(MANUAL_STATUSES);
  return {
    at: at - (at % 1000) + 7_000,
    status: { ...status, expiration: atS + lengthMin * 60 },
    ...(rng.chance(0.5) ? { clearAt: at + rng.int(5, lengthMin - 5) * MIN } : {}),
  };
}

/**
 * A status set with no expiration (status_expiration 0), which only the user's clear ends,
 * well before the faults stop so later block starts follow it.
 */
function lastingManualPlan(rng: Rng, shape: SoakShape, loseClearEvent: boolean): ManualPlan {
  const latest = shape.faultsOffAt - 120 * MIN;
  const at =
    shape.dayStart +
    20 * MIN +
    Math.floor(rng.next() * Math.max(MIN, latest - shape.dayStart - 20 * MIN));
  return {
    at: at - (at % 1000) + 7_000,
    status: { ...rng.pick(MANUAL_STATUSES), expiration: 0 },
    clearAt: at + rng.int(10, 60) * MIN,
    // Half lose the clear's event; the other half leave the expiration out of the set.
    ...(loseClearEvent ? { loseClearEvent } : { omitExpiration: true }),
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
  // Plain timed events: the edits cancel or move something that shows (or would).
  const candidates = events.filter(
    (e) =>
      !e.allDay &&
      e.partstat === undefined &&
      !e.tentative &&
      !e.transparent &&
      e.start > shape.dayStart + 30 * MIN &&
      e.end < shape.faultsOffAt - 5 * MIN,
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

const icsDate = (ms: number) => new Date(ms).toISOString().slice(0, 10).replace(/-/g, "");

/**
 * The feed as a provider would serve it: UTC times (all-day events as dates), cancelled events
 * kept with STATUS, the user's own answer on their ATTENDEE line.
 */
export function renderIcs(
  events: readonly CalendarEvent[],
  stampedAt: number,
  attendee: string,
): string {
  const lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//statuspilot//soak//EN"];
  for (const e of events) {
    const status = e.cancelled ? "CANCELLED" : e.tentative ? "TENTATIVE" : "CONFIRMED";
    lines.push(
      "BEGIN:VEVENT",
      `UID:${e.uid}`,
      `DTSTAMP:${icsUtc(stampedAt)}`,
      e.allDay ? `DTSTART;VALUE=DATE:${icsDate(e.start)}` : `DTSTART:${icsUtc(e.start)}`,
      e.allDay ? `DTEND;VALUE=DATE:${icsDate(e.end)}` : `DTEND:${icsUtc(e.end)}`,
      `SUMMARY:${e.title}`,
      `SEQUENCE:${e.sequence}`,
      `STATUS:${status}`,
      ...(e.transparent ? ["TRANSP:TRANSPARENT"] : []),
      ...(e.private ? ["CLASS:PRIVATE"] : []),
      ...(e.partstat
        ? [
            "ORGANIZER:mailto:organizer@soak.example",
            `ATTENDEE;PARTSTAT=${e.partstat}:mailto:${attendee}`,
          ]
        : []),
      "END:VEVENT",
    );
  }
  lines.push("END:VCALENDAR");
  return `${lines.join("\r\n")}\r\n`;
}
