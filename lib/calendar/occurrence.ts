import type ICAL from "ical.js";
import type { Occurrence } from "#lib/core/types";
import { type Context, textOf, textValueOf } from "./event-time";
import { guestCount, hasVideoLink } from "./participants";

export const normaliseEmail = (value: string): string =>
  value
    .trim()
    .replace(/^mailto:/i, "")
    .toLowerCase();

/** A parameter or text value upper-cased, for comparisons; undefined when it is not text. */
export const upper = (v: unknown): string | undefined =>
  typeof v === "string" ? v.trim().toUpperCase() : Array.isArray(v) ? upper(v[0]) : undefined;

/** One occurrence of `comp` at [start, end], with what the rules need to classify it. */
export function occurrenceOf(
  comp: ICAL.Component,
  uid: string,
  start: number,
  end: number,
  allDay: boolean,
  ctx: Context,
  recurrenceId: string | undefined,
): Occurrence {
  const text = (name: string): string | undefined => textOf(comp, name);
  let partstat: string | undefined;
  const attendees = comp.getAllProperties("attendee");
  if (ctx.emails.size > 0) {
    for (const a of attendees) {
      const value = textValueOf(a);
      const email = a.getParameter("email");
      const candidates = [value, Array.isArray(email) ? email[0] : email]
        .filter((v): v is string => typeof v === "string")
        .map(normaliseEmail);
      if (candidates.some((c) => ctx.emails.has(c))) {
        partstat = upper(a.getParameter("partstat")) ?? "NEEDS-ACTION";
        break;
      }
    }
  }
  const occurrence: Occurrence = {
    uid,
    start,
    end,
    allDay,
    summary: text("summary") ?? "",
    attendeeCount: attendees.length,
    guests: guestsOf(comp, attendees, ctx.emails),
  };
  if (ONLINE_PROPERTIES.some((name) => hasVideoLink(text(name)))) occurrence.online = true;
  if (recurrenceId !== undefined) occurrence.recurrenceId = recurrenceId;
  const fields: Array<[keyof Occurrence, string]> = [
    ["status", "status"],
    ["transp", "transp"],
    ["busyStatus", "x-microsoft-cdo-busystatus"],
    ["class", "class"],
  ];
  for (const [key, prop] of fields) {
    const v = upper(textOf(comp, prop));
    if (v) (occurrence as unknown as Record<string, string>)[key] = v;
  }
  if (partstat) occurrence.partstat = partstat;
  const location = text("location");
  if (location) occurrence.location = location;
  return occurrence;
}

/** Where an ICS event may carry its video-call address. */
const ONLINE_PROPERTIES = [
  "url",
  "location",
  "description",
  "x-google-conference",
  "x-microsoft-skypeteamsmeetingurl",
];

/** A participant's address: its value (mailto:…) or its EMAIL parameter. */
function addressOf(p: ICAL.Property): string | undefined {
  const value = textValueOf(p);
  const email = p.getParameter("email");
  const param = Array.isArray(email) ? email[0] : email;
  const address = typeof param === "string" && param.trim() !== "" ? param : value;
  return address === undefined ? undefined : normaliseEmail(address);
}

/** The people besides the user: attendees (rooms and resources left out) and the organizer. */
function guestsOf(comp: ICAL.Component, attendees: ICAL.Property[], own: ReadonlySet<string>) {
  const people = attendees.filter((a) => {
    const cutype = upper(a.getParameter("cutype"));
    return cutype !== "ROOM" && cutype !== "RESOURCE";
  });
  const organizer = comp.getFirstProperty("organizer");
  const addresses = [...people, ...(organizer ? [organizer] : [])]
    .map(addressOf)
    .filter((a): a is string => a !== undefined);
  return guestCount(addresses, own, true);
}
