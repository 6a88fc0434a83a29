import {
  type CalendarState,
  type EventVersion,
  instanceKey,
  type StoredEvent,
  shiftedTimes,
} from "./calendar-model";
import { type EventData, type EventSpan, recurrenceOf, spanOf } from "./event-input";
import { expandStarts } from "./recurrence";
import { formatInZone, isoUtc, wallToInstant, zoneRules } from "./time";

/**
 * Event resources as events.list returns them (`kind: calendar#event`), and the instances of a
 * recurring event (`singleEvents=true`): id `<event id>_<start>`, `recurringEventId`,
 * `originalStartTime`, the event's fields with the instance's own times and any exception.
 */

export type EventResource = Record<string, unknown> & { id: string; status: string };

/**
 * An all-day item's day keys as instants: the days are the calendar's days, so a window
 * (instants) meets them at the calendar zone's midnights.
 */
function bounds(cal: CalendarState, span: EventSpan, start: number, end: number) {
  if (!span.allDay) return { start, end };
  const zone = zoneRules(cal.owner.timeZone);
  return { start: wallToInstant(start, zone), end: wallToInstant(end, zone) };
}

/** One listed item, with what ordering and windowing need. */
export interface ListedItem {
  resource: EventResource;
  /** Start and end (instants; day keys read as UTC for all-day items) for windows and order. */
  start: number;
  end: number;
  updated: number;
  cancelled: boolean;
}

/** Bounds of an expansion: `[from, to)` overlap, at most `limit` instances per series. */
export interface Window {
  from: number;
  to: number;
  limit: number;
}

const etag = (v: EventVersion, extra = 0) => `"${v.updated * 1000 + ((v.seq + extra) % 1000)}"`;

function times(data: EventData, span: EventSpan) {
  if (span.allDay) return { start: { date: data.start.date }, end: { date: data.end.date } };
  const zone = zoneRules(span.zone);
  return {
    start: { dateTime: formatInZone(span.start, zone), timeZone: data.start.timeZone ?? span.zone },
    end: {
      dateTime: formatInZone(span.end, zone),
      timeZone: data.end.timeZone ?? data.start.timeZone ?? span.zone,
    },
  };
}

function people(cal: CalendarState, data: EventData) {
  const own = cal.owner.email;
  const organizerEmail = (data.organizer?.email ?? own).toLowerCase();
  const organizer = {
    email: organizerEmail,
    ...(data.organizer?.displayName ? { displayName: data.organizer.displayName } : {}),
    ...(organizerEmail === own ? { self: true } : {}),
  };
  const attendees = data.attendees?.map((a) => {
    const email = a.email.toLowerCase();
    return {
      email,
      ...(a.displayName ? { displayName: a.displayName } : {}),
      ...(email === organizerEmail || a.organizer ? { organizer: true } : {}),
      ...(email === own ? { self: true } : {}),
      ...(a.resource ? { resource: true } : {}),
      ...(a.optional ? { optional: true } : {}),
      responseStatus: a.responseStatus ?? "needsAction",
    };
  });
  return { organizer, ...(attendees ? { attendees } : {}) };
}

/** `conferenceData` as given, and for a Meet conference its video entry point as `hangoutLink`. */
function conference(data: EventData) {
  const c = data.conferenceData;
  if (c === undefined) return {};
  const meet = c.conferenceSolution?.key.type === "hangoutsMeet";
  const video = c.entryPoints?.find((e) => e.entryPointType === "video")?.uri;
  return { conferenceData: c, ...(meet && video !== undefined ? { hangoutLink: video } : {}) };
}

/** The full resource of an event's data (`status` from the data, `confirmed` by default). */
function fullResource(
  cal: CalendarState,
  ev: StoredEvent,
  v: EventVersion,
  data: EventData,
  span: EventSpan,
  id: string,
): EventResource {
  return {
    kind: "calendar#event",
    etag: etag(v),
    id,
    status: data.status ?? "confirmed",
    htmlLink: `https://calendar.google.example/event?eid=${Buffer.from(`${id} ${cal.id}`).toString("base64url")}`,
    created: isoUtc(ev.created),
    updated: isoUtc(v.updated),
    ...(data.summary !== undefined ? { summary: data.summary } : {}),
    ...(data.description !== undefined ? { description: data.description } : {}),
    ...(data.location !== undefined ? { location: data.location } : {}),
    creator: { email: cal.owner.email, self: true },
    ...people(cal, data),
    ...times(data, span),
    ...(data.transparency === "transparent" ? { transparency: "transparent" } : {}),
    ...(data.visibility && data.visibility !== "default" ? { visibility: data.visibility } : {}),
    ...conference(data),
    iCalUID: `${ev.id}@google.com`,
    sequence: v.sequence,
    reminders: { useDefault: true },
    eventType: data.eventType ?? "default",
  };
}

/** A deleted event as listed: "only guaranteed to have the id field populated". */
const deletedResource = (v: EventVersion, id: string, extra: Record<string, unknown> = {}) =>
  ({ kind: "calendar#event", etag: etag(v), id, status: "cancelled", ...extra }) as EventResource;

function originalStart(span: EventSpan, at: number) {
  return span.allDay
    ? { date: new Date(at).toISOString().slice(0, 10) }
    : { dateTime: formatInZone(at, zoneRules(span.zone)), timeZone: span.zone };
}

/** The event itself (a single event, or a recurring event's master with its `recurrence`). */
export function eventItem(cal: CalendarState, ev: StoredEvent, v: EventVersion): ListedItem {
  const span = spanOf(v.data, cal.owner.timeZone);
  const resource = v.deleted
    ? deletedResource(v, ev.id)
    : {
        ...fullResource(cal, ev, v, v.data, span, ev.id),
        ...(v.data.recurrence?.length ? { recurrence: v.data.recurrence } : {}),
      };
  return {
    resource,
    ...bounds(cal, span, span.start, span.end),
    updated: v.updated,
    cancelled: resource.status === "cancelled",
  };
}

export const isRecurring = (v: EventVersion): boolean => (v.data.recurrence?.length ?? 0) > 0;

/** The instances of a recurring event that overlap the window, exceptions applied. */
export function instanceItems(
  cal: CalendarState,
  ev: StoredEvent,
  v: EventVersion,
  w: Window,
): ListedItem[] {
  const span = spanOf(v.data, cal.owner.timeZone);
  const rec = recurrenceOf(v.data, span);
  if (!rec) return [eventItem(cal, ev, v)];
  const zone = span.allDay ? undefined : zoneRules(span.zone);
  const length = span.end - span.start;
  const items: ListedItem[] = [];
  for (const at of expandStarts(rec, span.start, zone, w.to, Number.MAX_SAFE_INTEGER)) {
    if (bounds(cal, span, at, at + length).end <= w.from) continue;
    const key = instanceKey(at, span.allDay);
    const id = `${ev.id}_${key}`;
    const link = { recurringEventId: ev.id, originalStartTime: originalStart(span, at) };
    const override = v.overrides.get(key);
    if (v.deleted || override?.cancelled) {
      items.push({
        resource: deletedResource(v, id, link),
        ...bounds(cal, span, at, at + length),
        updated: override?.updated ?? v.updated,
        cancelled: true,
      });
    } else {
      const data = override?.data ?? { ...v.data, ...shiftedTimes(v.data, span, at) };
      const own = spanOf(data, cal.owner.timeZone);
      const resource: EventResource = { ...fullResource(cal, ev, v, data, own, id), ...link };
      if (override) resource.updated = isoUtc(Math.max(override.updated, v.updated));
      items.push({
        resource,
        ...bounds(cal, own, own.start, own.end),
        updated: override?.updated ?? v.updated,
        cancelled: resource.status === "cancelled",
      });
    }
    if (items.length >= w.limit) break;
  }
  return items;
}

/** With `singleEvents=false`: the instances that differ from the series (exceptions). */
export function exceptionItems(
  cal: CalendarState,
  ev: StoredEvent,
  v: EventVersion,
  w: Window,
): ListedItem[] {
  if (v.overrides.size === 0 || v.deleted) return [];
  return instanceItems(cal, ev, v, w).filter((item) => {
    const key = item.resource.id.slice(ev.id.length + 1);
    return v.overrides.has(key);
  });
}
