import * as z from "zod";
import { ianaZone } from "#lib/calendar/zones";
import { parseRecurrence, type Recurrence, RecurrenceError } from "./recurrence";
import { parseDate, parseRfc3339, zoneRules } from "./time";

/**
 * What the control surface accepts for an event: the writable fields of the Calendar API's
 * Event resource that Statuspilot reads. Server-set fields (etag, created, updated, iCalUID,
 * htmlLink, creator, attendees' `self`) are computed by the emulator, as Google does.
 */

const EventTimeIn = z
  .object({
    dateTime: z.string().optional(),
    date: z.string().optional(),
    timeZone: z.string().optional(),
  })
  .strict();

const AttendeeIn = z
  .object({
    email: z.string().min(3),
    displayName: z.string().optional(),
    organizer: z.boolean().optional(),
    optional: z.boolean().optional(),
    resource: z.boolean().optional(),
    responseStatus: z.enum(["needsAction", "declined", "tentative", "accepted"]).optional(),
  })
  .strict();

/**
 * A conference attached to the event, as the Event resource's `conferenceData` has it (written
 * with `conferenceDataVersion=1`): the solution (`hangoutsMeet`, `addOn` for Zoom and others)
 * and its entry points. A Meet conference also sets the read-only `hangoutLink`.
 */
const ConferenceIn = z
  .object({
    conferenceId: z.string().optional(),
    conferenceSolution: z
      .object({
        key: z.object({
          type: z.enum(["eventHangout", "eventNamedHangout", "hangoutsMeet", "addOn"]),
        }),
        name: z.string().optional(),
      })
      .strict()
      .optional(),
    entryPoints: z
      .array(
        z
          .object({
            entryPointType: z.enum(["video", "phone", "sip", "more"]),
            uri: z.string().min(1),
            label: z.string().optional(),
          })
          .strict(),
      )
      .optional(),
  })
  .strict();

const EVENT_FIELDS = {
  summary: z.string().optional(),
  description: z.string().optional(),
  location: z.string().optional(),
  status: z.enum(["confirmed", "tentative", "cancelled"]).optional(),
  start: EventTimeIn,
  end: EventTimeIn,
  eventType: z.enum(["default", "focusTime", "outOfOffice", "workingLocation"]).optional(),
  transparency: z.enum(["opaque", "transparent"]).optional(),
  visibility: z.enum(["default", "public", "private", "confidential"]).optional(),
  attendees: z.array(AttendeeIn).optional(),
  organizer: z.object({ email: z.string().min(3), displayName: z.string().optional() }).optional(),
  recurrence: z.array(z.string()).optional(),
  conferenceData: ConferenceIn.optional(),
};

/** Google event ids: base32hex characters (a-v, 0-9), 5 to 1024 of them. */
export const EVENT_ID = /^[a-v0-9]{5,1024}$/;

export const EventCreateIn = z
  .object({ id: z.string().regex(EVENT_ID).optional(), ...EVENT_FIELDS })
  .strict();
export const EventPatchIn = z.object(EVENT_FIELDS).partial().strict();

export type EventCreate = z.infer<typeof EventCreateIn>;
export type EventPatch = z.infer<typeof EventPatchIn>;
export type EventTime = z.infer<typeof EventTimeIn>;
export type AttendeeData = z.infer<typeof AttendeeIn>;

/** The writable fields of a stored event (all of an EventCreate but its id). */
export type EventData = Omit<EventCreate, "id">;

/** When an event happens: instants for a timed event, day keys (UTC midnight) for all-day. */
export type EventSpan =
  | { allDay: false; start: number; end: number; zone: string }
  | { allDay: true; start: number; end: number };

export class EventInputError extends Error {
  constructor(
    message: string,
    readonly pointer: string,
  ) {
    super(message);
    this.name = "EventInputError";
  }
}

function readTime(t: EventTime, field: "start" | "end", fallbackZone: string) {
  if ((t.dateTime === undefined) === (t.date === undefined)) {
    throw new EventInputError(`${field} needs exactly one of dateTime and date`, `/${field}`);
  }
  if (t.timeZone !== undefined && !ianaZone(t.timeZone)) {
    throw new EventInputError(`unknown time zone ${t.timeZone}`, `/${field}/timeZone`);
  }
  if (t.date !== undefined) {
    const day = parseDate(t.date);
    if (day === undefined) throw new EventInputError("bad date", `/${field}/date`);
    return { allDay: true as const, at: day };
  }
  const at = parseRfc3339(t.dateTime ?? "");
  if (at === undefined) throw new EventInputError("bad dateTime", `/${field}/dateTime`);
  return { allDay: false as const, at, zone: t.timeZone ?? fallbackZone };
}

/** The event's span, checked: both ends of one kind, the end after the start. */
export function spanOf(data: EventData, calendarZone: string): EventSpan {
  const s = readTime(data.start, "start", calendarZone);
  const e = readTime(data.end, "end", calendarZone);
  if (s.allDay !== e.allDay) {
    throw new EventInputError("start and end must both be dates or both dateTimes", "/end");
  }
  if (e.at <= s.at) throw new EventInputError("the end must be after the start", "/end");
  return s.allDay
    ? { allDay: true, start: s.at, end: e.at }
    : { allDay: false, start: s.at, end: e.at, zone: s.zone ?? calendarZone };
}

/** The event's recurrence, parsed; undefined for a single event. */
export function recurrenceOf(data: EventData, span: EventSpan): Recurrence | undefined {
  if (!data.recurrence || data.recurrence.length === 0) return undefined;
  try {
    return parseRecurrence(data.recurrence, span.allDay, (tzid) =>
      zoneRules(tzid ?? (span.allDay ? undefined : span.zone)),
    );
  } catch (e) {
    if (e instanceof RecurrenceError) throw new EventInputError(e.message, "/recurrence");
    throw e;
  }
}

/** Zod's first problem as an EventInputError with its JSON pointer. */
export function parseInput<T>(schema: z.ZodType<T>, raw: unknown): T {
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const pointer = `/${(issue?.path ?? []).map(String).join("/")}`;
  throw new EventInputError(issue?.message ?? "invalid event", pointer);
}
