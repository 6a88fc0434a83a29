import { randomBytes } from "node:crypto";
import { ianaZone } from "#lib/calendar/zones";
import type { Clock } from "#lib/core/clock";
import {
  type EventCreate,
  EventCreateIn,
  type EventData,
  EventInputError,
  type EventPatch,
  EventPatchIn,
  parseInput,
  recurrenceOf,
  spanOf,
} from "./event-input";
import { expandStarts } from "./recurrence";
import { compactDate, compactUtc, formatInZone, zoneRules } from "./time";

/**
 * The emulated accounts and their primary calendars: events with every version kept, so an
 * incremental sync can say what changed since any sync token. Each change of a calendar bumps
 * its sequence number and tells the listeners (the push channels).
 */

export interface GoogleUser {
  id: string;
  email: string;
  name: string;
  timeZone: string;
}

/** A changed or cancelled instance of a recurring event (an "exception"). */
export interface InstanceOverride {
  cancelled: boolean;
  /** The instance's own fields when edited; undefined when only cancelled. */
  data?: EventData;
  updated: number;
}

/** One state of an event, as of calendar sequence number `seq`. */
export interface EventVersion {
  seq: number;
  updated: number;
  data: EventData;
  /** Deleted: listed (to syncs and with showDeleted) as `status: cancelled` with its id only. */
  deleted: boolean;
  overrides: ReadonlyMap<string, InstanceOverride>;
  /** Google's `sequence`: how many times the event was edited. */
  sequence: number;
}

export interface StoredEvent {
  id: string;
  created: number;
  versions: EventVersion[];
}

export interface CalendarState {
  /** The primary calendar's id: its owner's address. */
  id: string;
  owner: GoogleUser;
  seq: number;
  /** Raised to invalidate every sync token issued so far (410 fullSyncRequired). */
  syncEpoch: number;
  /** Google's opaque id of the watched events collection, stable for the calendar. */
  resourceId: string;
  events: Map<string, StoredEvent>;
}

export const currentVersion = (ev: StoredEvent): EventVersion =>
  ev.versions[ev.versions.length - 1] as EventVersion;

/** The version an event had at calendar sequence `seq`; undefined when it did not exist yet. */
export function versionAt(ev: StoredEvent, seq: number): EventVersion | undefined {
  let found: EventVersion | undefined;
  for (const v of ev.versions) if (v.seq <= seq) found = v;
  return found;
}

export class ModelError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
    readonly pointer?: string,
  ) {
    super(message);
    this.name = "ModelError";
  }
}

/** A random base32hex id, the alphabet of Google event ids. */
export function base32hexId(length = 26): string {
  const alphabet = "0123456789abcdefghijklmnopqrstuv";
  return [...randomBytes(length)].map((b) => alphabet[b % 32]).join("");
}

/** The id key of an instance that started at `start` (instant, or a day key when all-day). */
export const instanceKey = (start: number, allDay: boolean): string =>
  allDay ? compactDate(start) : compactUtc(start);

/** `changed`: an event of the calendar changed; `removed`: the calendar is gone. */
export type ChangeListener = (calendar: CalendarState, kind: "changed" | "removed") => void;

export class CalendarModel {
  readonly users = new Map<string, GoogleUser>();
  private readonly calendars = new Map<string, CalendarState>();
  private readonly listeners: ChangeListener[] = [];

  constructor(private readonly clock: () => Clock) {}

  onChange(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  addUser(u: { id?: string; email: string; name?: string; timeZone?: string }): GoogleUser {
    const email = u.email.toLowerCase();
    if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new ModelError(400, "bad email", "/email");
    if (this.calendars.has(email)) throw new ModelError(409, `user ${email} exists`, "/email");
    const timeZone = u.timeZone ?? "UTC";
    if (!ianaZone(timeZone)) {
      throw new ModelError(400, `unknown time zone ${timeZone}`, "/timeZone");
    }
    const user: GoogleUser = {
      id: u.id ?? String(100_000_000_000_000_000_000n + BigInt(this.users.size + 1)),
      email,
      name: u.name ?? email.split("@")[0] ?? email,
      timeZone,
    };
    if (this.users.has(user.id)) throw new ModelError(409, `user ${user.id} exists`, "/id");
    this.users.set(user.id, user);
    this.calendars.set(email, {
      id: email,
      owner: user,
      seq: 1,
      syncEpoch: 1,
      resourceId: randomBytes(12).toString("base64url"),
      events: new Map(),
    });
    return user;
  }

  userByEmail(email: string): GoogleUser | undefined {
    return this.calendars.get(email.toLowerCase())?.owner;
  }

  /** The calendar `calendarId` names for `user`: `primary` or the owner's address. */
  calendarFor(user: GoogleUser, calendarId: string): CalendarState | undefined {
    const id = calendarId === "primary" ? user.email : calendarId.toLowerCase();
    const cal = this.calendars.get(id);
    return cal && cal.owner.id === user.id ? cal : undefined;
  }

  calendar(id: string): CalendarState {
    const cal = this.calendars.get(id.toLowerCase());
    if (!cal) throw new ModelError(404, `no calendar ${id}`);
    return cal;
  }

  allCalendars(): CalendarState[] {
    return [...this.calendars.values()];
  }

  /** Makes every sync token of the calendar (or of all calendars) answer 410. */
  expireSyncTokens(calendarId?: string): void {
    const cals = calendarId === undefined ? this.allCalendars() : [this.calendar(calendarId)];
    for (const c of cals) c.syncEpoch += 1;
  }

  /** Deletes the account's calendar: its channels hear `not_exists`; reads then answer 404. */
  removeCalendar(id: string): void {
    const cal = this.calendar(id);
    this.calendars.delete(cal.id);
    for (const l of this.listeners) l(cal, "removed");
  }

  createEvent(calendarId: string, raw: unknown): StoredEvent {
    const cal = this.calendar(calendarId);
    const input: EventCreate = this.parse(EventCreateIn, raw);
    const { id = base32hexId(), ...data } = input;
    if (cal.events.has(id)) throw new ModelError(409, `event ${id} exists`, "/id");
    this.check(data, cal);
    const now = this.clock().now();
    cal.seq += 1;
    const ev: StoredEvent = {
      id,
      created: now,
      versions: [
        { seq: cal.seq, updated: now, data, deleted: false, overrides: new Map(), sequence: 0 },
      ],
    };
    cal.events.set(id, ev);
    this.changed(cal);
    return ev;
  }

  /** Edits an event, or (with an instance id `<id>_<key>`) one instance of a recurring one. */
  patchEvent(calendarId: string, eventId: string, raw: unknown): StoredEvent {
    const cal = this.calendar(calendarId);
    const patch: EventPatch = this.parse(EventPatchIn, raw);
    const target = this.find(cal, eventId);
    const cur = currentVersion(target.event);
    if (cur.deleted) throw new ModelError(404, `event ${eventId} was deleted`);
    if (target.instance) {
      const prior = cur.overrides.get(target.instance.key);
      const base = prior?.data ?? { ...cur.data, recurrence: undefined, ...target.instance.times };
      const data: EventData = { ...base, ...patch, recurrence: undefined };
      this.check(data, cal);
      const overrides = new Map(cur.overrides);
      overrides.set(target.instance.key, {
        cancelled: data.status === "cancelled",
        data,
        updated: this.clock().now(),
      });
      return this.commit(cal, target.event, { ...cur, overrides });
    }
    const data: EventData = { ...cur.data, ...patch };
    this.check(data, cal);
    return this.commit(cal, target.event, { ...cur, data, sequence: cur.sequence + 1 });
  }

  /** The organizer cancels: the event stays, with `status: cancelled`. */
  cancelEvent(calendarId: string, eventId: string): StoredEvent {
    const cal = this.calendar(calendarId);
    const target = this.find(cal, eventId);
    if (target.instance) return this.cancelInstance(cal, target.event, target.instance.key);
    return this.patchEvent(calendarId, eventId, { status: "cancelled" });
  }

  /** Deletes the event (Google then lists it as cancelled with only its id guaranteed). */
  deleteEvent(calendarId: string, eventId: string): StoredEvent {
    const cal = this.calendar(calendarId);
    const target = this.find(cal, eventId);
    if (target.instance) return this.cancelInstance(cal, target.event, target.instance.key);
    const cur = currentVersion(target.event);
    if (cur.deleted) throw new ModelError(404, `event ${eventId} was deleted`);
    return this.commit(cal, target.event, { ...cur, deleted: true });
  }

  private cancelInstance(cal: CalendarState, ev: StoredEvent, key: string): StoredEvent {
    const cur = currentVersion(ev);
    const overrides = new Map(cur.overrides);
    overrides.set(key, { cancelled: true, updated: this.clock().now() });
    return this.commit(cal, ev, { ...cur, overrides });
  }

  private commit(cal: CalendarState, ev: StoredEvent, next: EventVersion): StoredEvent {
    cal.seq += 1;
    ev.versions.push({ ...next, seq: cal.seq, updated: this.clock().now() });
    this.changed(cal);
    return ev;
  }

  private parse<T>(schema: Parameters<typeof parseInput<T>>[0], raw: unknown): T {
    try {
      return parseInput(schema, raw);
    } catch (e) {
      if (e instanceof EventInputError) throw new ModelError(400, e.message, e.pointer);
      throw e;
    }
  }

  private check(data: EventData, cal: CalendarState): void {
    try {
      recurrenceOf(data, spanOf(data, cal.owner.timeZone));
    } catch (e) {
      if (e instanceof EventInputError) throw new ModelError(400, e.message, e.pointer);
      throw e;
    }
  }

  /** An event by id, or an instance `<id>_<key>` of a recurring event that has that instance. */
  private find(
    cal: CalendarState,
    eventId: string,
  ): {
    event: StoredEvent;
    instance?: { key: string; times: Pick<EventData, "start" | "end"> };
  } {
    const direct = cal.events.get(eventId);
    if (direct) return { event: direct };
    const cut = eventId.lastIndexOf("_");
    const base = cut > 0 ? cal.events.get(eventId.slice(0, cut)) : undefined;
    if (base) {
      const key = eventId.slice(cut + 1);
      const data = currentVersion(base).data;
      const span = spanOf(data, cal.owner.timeZone);
      const rec = recurrenceOf(data, span);
      if (rec) {
        const zone = span.allDay ? undefined : zoneRules(span.zone);
        const limit = Number.MAX_SAFE_INTEGER;
        const at = parseKey(key, span.allDay);
        if (at !== undefined) {
          const starts = expandStarts(rec, span.start, zone, at + 1, limit);
          if (starts.includes(at)) {
            return { event: base, instance: { key, times: shiftedTimes(data, span, at) } };
          }
        }
      }
    }
    throw new ModelError(404, `no event ${eventId}`);
  }

  private changed(cal: CalendarState): void {
    for (const l of this.listeners) l(cal, "changed");
  }
}

/** The instant (or day key) an instance key names. */
export function parseKey(key: string, allDay: boolean): number | undefined {
  const m = allDay
    ? /^(\d{4})(\d{2})(\d{2})$/.exec(key)
    : /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(key);
  if (!m) return undefined;
  return Date.UTC(
    +(m[1] ?? 0),
    +(m[2] ?? 1) - 1,
    +(m[3] ?? 1),
    +(m[4] ?? 0),
    +(m[5] ?? 0),
    +(m[6] ?? 0),
  );
}

/** The start and end fields of the instance that starts at `at`. */
export function shiftedTimes(
  data: EventData,
  span: ReturnType<typeof spanOf>,
  at: number,
): Pick<EventData, "start" | "end"> {
  const length = span.end - span.start;
  if (span.allDay) {
    const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    return { start: { date: iso(at) }, end: { date: iso(at + length) } };
  }
  const zone = zoneRules(span.zone);
  return {
    start: { dateTime: formatInZone(at, zone), timeZone: data.start.timeZone ?? span.zone },
    end: { dateTime: formatInZone(at + length, zone), timeZone: data.end.timeZone ?? span.zone },
  };
}
