import * as z from "zod";
import type { Occurrence } from "#lib/core/types";
import { zonedToEpoch } from "#lib/core/zoned-time";
import { accountCalendarName } from "../calendar-name";
import { guestCount } from "../participants";

/**
 * Microsoft Graph events in our occurrence model, from the fields' documented meanings:
 *
 * - `showAs` `oof` → out of office (busy status OOF, the native out-of-office kind); `busy` →
 *   busy (a meeting unless a keyword says focus); `tentative` → busy status and status TENTATIVE,
 *   so the user's "skip tentative" rule decides; `free` and `workingElsewhere` make no status.
 * - `isCancelled` removes the occurrence; `responseStatus.response` `declined` skips it, and
 *   `tentativelyAccepted` is a tentative attendance (the rule again).
 * - `sensitivity` `private` (or `confidential`) marks the title hidden: classification never
 *   shows it.
 * - `isAllDay` events run from midnight to midnight in the owner's zone on their dates.
 * - `isOnlineMeeting` or an `onlineMeeting.joinUrl` makes it online. Its guests are the
 *   attendees (resources left out) and the organizer, unless `isOrganizer`, that are not the
 *   owner (by the owner's addresses; without them, an invitee takes one attendee for the owner).
 *
 * Times are read as UTC: the read asks for them with `Prefer: outlook.timezone="UTC"`.
 */

/**
 * The fields of a Graph event that the mapping reads; others are ignored. Built on first use:
 * a top-level schema call would stay in every bundle that imports the registry (the hooks').
 */
const buildGraphEventSchema = () => {
  const dateTimeTimeZone = z.object({ dateTime: z.string(), timeZone: z.string().optional() });
  return z
    .object({
      id: z.string(),
      iCalUId: z.string().optional().nullable(),
      subject: z.string().optional().nullable(),
      start: dateTimeTimeZone,
      end: dateTimeTimeZone,
      isAllDay: z.boolean().optional().nullable(),
      isCancelled: z.boolean().optional().nullable(),
      showAs: z.string().optional().nullable(),
      sensitivity: z.string().optional().nullable(),
      responseStatus: z
        .object({ response: z.string().optional().nullable() })
        .optional()
        .nullable(),
      location: z.object({ displayName: z.string().optional().nullable() }).optional().nullable(),
      attendees: z.array(z.unknown()).optional().nullable(),
      isOrganizer: z.boolean().optional().nullable(),
      organizer: z.unknown().optional().nullable(),
      isOnlineMeeting: z.boolean().optional().nullable(),
      onlineMeeting: z
        .object({ joinUrl: z.string().optional().nullable() })
        .loose()
        .optional()
        .nullable(),
    })
    .loose();
};
let graphEventSchemaBuilt: ReturnType<typeof buildGraphEventSchema> | undefined;
export const graphEventSchema = () => (graphEventSchemaBuilt ??= buildGraphEventSchema());
export type GraphEvent = z.infer<ReturnType<typeof buildGraphEventSchema>>;

export type GraphMapping = { occurrence: Occurrence } | { skip: { reason: string; uid: string } };

/** The wall-clock date of a Graph `dateTime` (`2026-11-24T00:00:00.0000000`). */
const datePart = (dateTime: string): [number, number, number] | undefined => {
  const m = dateTime.match(/^(\d{4})-(\d{2})-(\d{2})/);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
};

/** Midnight of a date in `zone`, as an instant. */
export const midnightIn = (year: number, month: number, day: number, zone: string): number =>
  zonedToEpoch({ y: year, m: month, d: day, hh: 0, mm: 0 }, zone);

const UTC_NAMES = new Set(["utc", "etc/utc", "gmt", "etc/gmt", "z"]);

/** A timed `dateTime` as an instant: UTC (as asked), or one carrying its own offset. */
function instantOf(t: { dateTime: string; timeZone?: string | undefined }): number | undefined {
  const hasOffset = /(Z|[+-]\d{2}:\d{2})$/i.test(t.dateTime);
  if (!hasOffset && t.timeZone !== undefined && !UTC_NAMES.has(t.timeZone.toLowerCase())) {
    return undefined;
  }
  const ms = Date.parse(hasOffset ? t.dateTime : `${t.dateTime}Z`);
  return Number.isFinite(ms) ? ms : undefined;
}

const PARTSTAT: Record<string, string> = {
  accepted: "ACCEPTED",
  tentativelyAccepted: "TENTATIVE",
  declined: "DECLINED",
  notResponded: "NEEDS-ACTION",
};

const CLASS: Record<string, string> = { private: "PRIVATE", confidential: "CONFIDENTIAL" };

/** One Graph event as an occurrence, or why it makes none. */
export function mapGraphEvent(
  event: GraphEvent,
  ownerZone: string,
  ownerEmails: readonly string[] = [],
): GraphMapping {
  // A Graph event id names one instance (a series' instances share their iCalUId).
  const uid = event.id;
  const skip = (reason: string): GraphMapping => ({ skip: { reason, uid } });
  if (event.isCancelled === true) return skip("cancelled");
  const response = event.responseStatus?.response ?? undefined;
  if (response === "declined") return skip("declined by the user");
  const showAs = event.showAs ?? "busy";
  if (showAs === "free") return skip("shown as free");
  if (showAs === "workingElsewhere") return skip("working elsewhere");

  let start: number | undefined;
  let end: number | undefined;
  const allDay = event.isAllDay === true;
  if (allDay) {
    const s = datePart(event.start.dateTime);
    const e = datePart(event.end.dateTime);
    start = s && midnightIn(...s, ownerZone);
    end = e && midnightIn(...e, ownerZone);
  } else {
    start = instantOf(event.start);
    end = instantOf(event.end);
  }
  if (start === undefined || end === undefined) return skip("unreadable start or end");

  const occurrence: Occurrence = {
    uid,
    start,
    end: Math.max(start, end),
    allDay,
    summary: event.subject ?? "",
    attendeeCount: event.attendees?.length ?? 0,
    guests: guestsOf(event, ownerEmails),
  };
  if (event.isOnlineMeeting === true || (event.onlineMeeting?.joinUrl ?? "") !== "") {
    occurrence.online = true;
  }
  if (showAs === "oof") occurrence.busyStatus = "OOF";
  else if (showAs === "busy") occurrence.busyStatus = "BUSY";
  else if (showAs === "tentative") {
    occurrence.busyStatus = "TENTATIVE";
    occurrence.status = "TENTATIVE";
  }
  const partstat = response === undefined ? undefined : PARTSTAT[response];
  if (partstat) occurrence.partstat = partstat;
  const hidden = CLASS[event.sensitivity ?? ""];
  if (hidden) occurrence.class = hidden;
  const location = event.location?.displayName;
  if (location) occurrence.location = location;
  return { occurrence };
}

/** An attendee's or organizer's `emailAddress.address`, and whether it is a resource (a room). */
function participantOf(value: unknown): { address: string; resource: boolean } | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const p = value as { type?: unknown; emailAddress?: { address?: unknown } | null };
  const address = p.emailAddress?.address;
  if (typeof address !== "string") return undefined;
  return { address, resource: p.type === "resource" };
}

function guestsOf(event: GraphEvent, ownerEmails: readonly string[]): number {
  const people = (event.attendees ?? [])
    .map(participantOf)
    .filter((p) => p !== undefined && !p.resource)
    .map((p) => p?.address ?? "");
  const organizer = event.isOrganizer === true ? undefined : participantOf(event.organizer);
  if (organizer !== undefined) people.push(organizer.address);
  const own = new Set(ownerEmails.map((e) => e.trim().toLowerCase()));
  // An invitee is among the attendees; an organizer is not (Graph lists the invitees).
  return guestCount(people, own, event.isOrganizer !== true);
}

/**
 * The calendar's name: the delta read names no calendar, so "Outlook calendar" and the account's
 * address, from an event the account organizes (`isOrganizer`), when the window has one.
 */
export function graphCalendarName(items: readonly Record<string, unknown>[]): string {
  const own = items.find((item) => item.isOrganizer === true && participantOf(item.organizer));
  const account = own === undefined ? undefined : participantOf(own.organizer)?.address;
  return accountCalendarName("Outlook calendar", account) ?? "Outlook calendar";
}
