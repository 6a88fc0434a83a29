import * as z from "zod";
import type { Occurrence } from "#lib/core/types";
import { zonedToEpoch } from "#lib/core/zoned-time";
import { accountCalendarName } from "../calendar-name";
import { guestCount } from "../participants";

/**
 * Google Calendar events (events.list with `singleEvents=true`, so each item is one instance)
 * mapped to our occurrence model, by the field meanings of the Events resource:
 *
 * - `status: cancelled` is a deleted event or instance: it makes no occurrence.
 * - `eventType`: `focusTime` is focus and `outOfOffice` is out of office natively (the rules'
 *   keywords are not consulted); `workingLocation` is where the user works, not a status.
 * - `transparency: transparent` is "show me as available": skipped (an out-of-office or focus
 *   event keeps its native kind whatever its transparency, as an ICS OOF busy status does).
 * - the attendee with `self: true` and `responseStatus: declined` is a meeting the user declined:
 *   skipped; `tentative` is kept as tentative, so the user's skip-tentative rule decides.
 * - `visibility: private` / `confidential` hides the title.
 * - all-day events have `date` (YYYY-MM-DD, end exclusive) instead of `dateTime`.
 * - `hangoutLink` or `conferenceData` (a Meet, Zoom or other call attached) makes it online;
 *   the guests are the attendees and the organizer without `self` (rooms, `resource`, left out).
 */

const eventTimeSchema = z
  .object({ date: z.string().optional(), dateTime: z.string().optional() })
  .loose();

/** Built on first use: a bundle that never reads Google leaves the schema calls out. */
const eventSchemaOf = () =>
  z
    .object({
      id: z.string(),
      status: z.string().optional(),
      summary: z.string().optional(),
      location: z.string().optional(),
      eventType: z.string().optional(),
      transparency: z.string().optional(),
      visibility: z.string().optional(),
      recurringEventId: z.string().optional(),
      originalStartTime: eventTimeSchema.optional(),
      start: eventTimeSchema.optional(),
      end: eventTimeSchema.optional(),
      attendees: z
        .array(
          z
            .object({
              email: z.string().optional(),
              self: z.boolean().optional(),
              resource: z.boolean().optional(),
              responseStatus: z.string().optional(),
            })
            .loose(),
        )
        .optional(),
      organizer: z
        .object({ email: z.string().optional(), self: z.boolean().optional() })
        .loose()
        .optional(),
      hangoutLink: z.string().optional(),
      conferenceData: z
        .object({
          conferenceId: z.string().optional(),
          entryPoints: z.array(z.object({ uri: z.string().optional() }).loose()).optional(),
        })
        .loose()
        .optional(),
    })
    .loose();

export type GoogleEvent = z.infer<ReturnType<typeof eventSchemaOf>>;

let eventsPageSchema:
  | z.ZodObject<{
      summary: z.ZodOptional<z.ZodString>;
      items: z.ZodDefault<z.ZodArray<ReturnType<typeof eventSchemaOf>>>;
      nextPageToken: z.ZodOptional<z.ZodString>;
      nextSyncToken: z.ZodOptional<z.ZodString>;
    }>
  | undefined;

/**
 * One page of events.list: the calendar's title (`summary`), `items`, and `nextPageToken` or (on
 * the last page) `nextSyncToken`.
 */
export const googleEventsPage = () =>
  (eventsPageSchema ??= z.object({
    summary: z.string().optional(),
    items: z.array(eventSchemaOf()).default([]),
    nextPageToken: z.string().optional(),
    nextSyncToken: z.string().optional(),
  }));

/**
 * The calendar's name: its title and the account's address, as the entries Google marks `self`
 * (creator, organizer, attendee) give it; a primary calendar's title is often that address.
 */
export function googleCalendarName(
  summary: string | undefined,
  events: readonly GoogleEvent[],
): string | undefined {
  let account: string | undefined;
  for (const e of events) {
    const creator = e.creator as { email?: unknown; self?: unknown } | undefined;
    const selves = [creator, e.organizer, ...(e.attendees ?? [])];
    const own = selves.find((p) => p?.self === true && typeof p.email === "string");
    if (own !== undefined) {
      account = String(own.email);
      break;
    }
  }
  return accountCalendarName(summary, account);
}

/** The native busy statuses the status kinds recognise (lib/core/status-kinds.ts). */
const NATIVE_BUSY_STATUS: Readonly<Record<string, string>> = {
  outOfOffice: "OOF",
  focusTime: "FOCUS",
};

export type GoogleEventMapping =
  | { kind: "occurrence"; occurrence: Occurrence }
  | { kind: "skipped"; reason: string; uid: string };

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Midnight of `date` (YYYY-MM-DD) in `zone` (UTC when the zone is unknown), epoch ms. */
export function zonedMidnightOf(date: string, zone: string): number | undefined {
  const m = DATE.exec(date);
  if (!m) return undefined;
  return zonedToEpoch({ y: Number(m[1]), m: Number(m[2]), d: Number(m[3]), hh: 0, mm: 0 }, zone);
}

function instantOf(t: { date?: string; dateTime?: string } | undefined, zone: string) {
  if (t?.dateTime !== undefined) {
    const ms = Date.parse(t.dateTime);
    return Number.isNaN(ms) ? undefined : { ms, allDay: false };
  }
  if (t?.date !== undefined) {
    const ms = zonedMidnightOf(t.date, zone);
    return ms === undefined ? undefined : { ms, allDay: true };
  }
  return undefined;
}

/** Maps one instance of events.list to an occurrence, or says why it makes none. */
export function mapGoogleEvent(event: GoogleEvent, opts: { zone: string }): GoogleEventMapping {
  const uid = event.id;
  const skip = (reason: string): GoogleEventMapping => ({ kind: "skipped", reason, uid });
  if (event.status === "cancelled") return skip("cancelled");
  if (event.eventType === "workingLocation") return skip("working location");
  const start = instantOf(event.start, opts.zone);
  const end = instantOf(event.end, opts.zone);
  if (start === undefined || end === undefined) return skip("no start or end");
  if (end.ms < start.ms) return skip("ends before it starts");
  const busyStatus = event.eventType ? NATIVE_BUSY_STATUS[event.eventType] : undefined;
  if (event.transparency === "transparent" && busyStatus === undefined) {
    return skip("transparent (shown as free)");
  }
  const self = event.attendees?.find((a) => a.self === true);
  if (self?.responseStatus === "declined") return skip("declined by the user");
  const occurrence: Occurrence = {
    uid,
    start: start.ms,
    end: end.ms,
    allDay: start.allDay,
    summary: event.summary ?? "",
    attendeeCount: event.attendees?.length ?? 0,
    guests: guestsOf(event),
  };
  if (isOnline(event)) occurrence.online = true;
  const original = event.originalStartTime;
  if (event.recurringEventId !== undefined && original !== undefined) {
    const rid = original.dateTime ?? original.date;
    if (rid !== undefined) occurrence.recurrenceId = rid;
  }
  if (event.status === "tentative") occurrence.status = "TENTATIVE";
  if (self?.responseStatus === "tentative") occurrence.partstat = "TENTATIVE";
  else if (self?.responseStatus === "accepted") occurrence.partstat = "ACCEPTED";
  else if (self?.responseStatus === "needsAction") occurrence.partstat = "NEEDS-ACTION";
  if (busyStatus !== undefined) occurrence.busyStatus = busyStatus;
  if (event.visibility === "private" || event.visibility === "confidential") {
    occurrence.class = event.visibility.toUpperCase();
  }
  if (event.location) occurrence.location = event.location;
  return { kind: "occurrence", occurrence };
}

/** Google flags the user's own entries (`self`), so no address of theirs is needed. */
function guestsOf(event: GoogleEvent): number {
  const others = (event.attendees ?? [])
    .filter((a) => a.self !== true && a.resource !== true)
    .map((a) => a.email ?? "");
  const organizer = event.organizer;
  if (organizer !== undefined && organizer.self !== true) others.push(organizer.email ?? "");
  return guestCount(others, new Set(), false);
}

const isOnline = (event: GoogleEvent): boolean =>
  (event.hangoutLink ?? "") !== "" ||
  event.conferenceData?.conferenceId !== undefined ||
  event.conferenceData?.entryPoints?.some((e) => (e.uri ?? "") !== "") === true;

/** The occurrences of `events` that overlap the window, with what was skipped and why. */
export function mapGoogleEvents(
  events: readonly GoogleEvent[],
  opts: { zone: string; from: number; to: number },
): { occurrences: Occurrence[]; skipped: Array<{ reason: string; uid: string }> } {
  const occurrences: Occurrence[] = [];
  const skipped: Array<{ reason: string; uid: string }> = [];
  for (const event of events) {
    const mapped = mapGoogleEvent(event, opts);
    if (mapped.kind === "skipped") {
      if (mapped.reason !== "cancelled") skipped.push({ reason: mapped.reason, uid: mapped.uid });
      continue;
    }
    const o = mapped.occurrence;
    if (o.end > opts.from && o.start < opts.to) occurrences.push(o);
  }
  occurrences.sort((a, b) => a.start - b.start || a.uid.localeCompare(b.uid));
  return { occurrences, skipped };
}
