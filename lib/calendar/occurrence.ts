import type ICAL from "ical.js";
import type { Occurrence } from "#lib/core/types";
import { type Context, textOf, textValueOf } from "./event-time";

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
  };
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
