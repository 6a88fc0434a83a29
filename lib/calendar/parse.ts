import ICAL from "ical.js";
import { CalendarParseError } from "./errors";

/** An event (or time zone) that could not be used, and why. */
export interface SkippedEvent {
  uid?: string;
  summary?: string;
  reason: string;
}

/** Top-level components that the lenient parse cuts the feed into. */
const TOP_LEVEL = /^BEGIN:(VEVENT|VTIMEZONE|VTODO|VJOURNAL|VFREEBUSY|VAVAILABILITY)\s*$/i;

/**
 * Parses a feed into its VCALENDAR. Throws CalendarParseError only when the text is not
 * iCalendar at all: no BEGIN:VCALENDAR, or not one component survives the lenient parse.
 * Every component lost on the way is recorded in `skipped` with its reason.
 */
export function parseFeed(text: string, skipped: SkippedEvent[]): ICAL.Component {
  if (!/BEGIN:VCALENDAR/i.test(text)) {
    throw new CalendarParseError("not an iCalendar feed: no BEGIN:VCALENDAR");
  }
  // Blank lines are not content lines; some producers emit them inside components.
  const clean = text
    .replace(/\r\n?/g, "\n")
    .replace(/\n{2,}/g, "\n")
    .replace(/^\n/, "")
    .replace(BARE_DATE, "$1;VALUE=DATE$2")
    .replace(TYPED_TEXT, "$1");
  try {
    return firstCalendar(ICAL.parse(clean));
  } catch (error: unknown) {
    return parseLeniently(clean, skipped, error);
  }
}

/**
 * "DTSTART:20190101" without VALUE=DATE is common (holiday feeds); ical.js would read it as a
 * broken DATE-TIME, so the parameter is added before parsing.
 */
const BARE_DATE =
  /^((?:DTSTART|DTEND|RECURRENCE-ID|EXDATE|RDATE)(?:;(?![^:\n]*VALUE=)[^:\n]*)?)(:\d{8}(?:,\d{8})*)$/gim;

/**
 * A VALUE parameter on a property that can only be text (SUMMARY;VALUE=DATE:Lunch): ical.js
 * would reshape the text as a date ("Lun-ch-") and lose it, so the parameter is dropped.
 */
const TYPED_TEXT =
  /^((?:SUMMARY|DESCRIPTION|LOCATION|UID|STATUS|TRANSP|CLASS|ATTENDEE|ORGANIZER|TZID|X-WR-TIMEZONE|X-MICROSOFT-CDO-BUSYSTATUS)(?:;[^:;\n"]*)*?);VALUE=[^:;\n"]*/gim;

function firstCalendar(jcal: unknown): ICAL.Component {
  if (!Array.isArray(jcal) || jcal.length === 0) throw new Error("empty feed");
  // ICAL.parse returns one component, or a list of them when the text holds several.
  const list = typeof jcal[0] === "string" ? [jcal] : jcal;
  const calendars = list.map((c) => new ICAL.Component(c as unknown[]));
  const first = calendars[0];
  if (!first) throw new Error("empty feed");
  for (const extra of calendars.slice(1)) {
    for (const sub of extra.getAllSubcomponents()) first.addSubcomponent(sub);
  }
  return first;
}

/**
 * Parses component by component, so one malformed component costs only itself. A component
 * whose END line is missing or garbled ends where the next top-level component (or the
 * calendar) begins or ends; it is skipped rather than allowed to swallow what follows.
 */
function parseLeniently(text: string, skipped: SkippedEvent[], cause: unknown): ICAL.Component {
  const root = new ICAL.Component("vcalendar");
  const header: string[] = [];
  let block: string[] | undefined;
  let blockKind = "";
  let found = 0;
  const abandon = (lines: string[], kind: string) => {
    skipped.push({ ...identify(lines), reason: `${kind} component began but did not end` });
  };
  for (const line of text.split("\n")) {
    const begin = TOP_LEVEL.exec(line)?.[1]?.toUpperCase();
    const calendarEdge = /^(BEGIN|END):VCALENDAR\s*$/i.test(line);
    if (block && (begin || calendarEdge)) {
      abandon(block, blockKind);
      block = undefined;
    }
    if (begin) {
      block = [line];
      blockKind = begin;
      continue;
    }
    if (block) {
      block.push(line);
      if (new RegExp(`^END:${blockKind}\\s*$`, "i").test(line)) {
        found++;
        addBlock(root, block, skipped);
        block = undefined;
      }
      continue;
    }
    if (/^X-WR-TIMEZONE[:;]/i.test(line)) header.push(line);
  }
  if (block) abandon(block, blockKind);
  if (found === 0) {
    throw new CalendarParseError(`unparseable iCalendar feed: ${oneLine(cause)}`, { cause });
  }
  for (const line of header) {
    try {
      root.addProperty(ICAL.Property.fromString(line));
    } catch {
      // A broken calendar-level header only loses the default zone; events still expand.
    }
  }
  return root;
}

function addBlock(root: ICAL.Component, block: string[], skipped: SkippedEvent[]): void {
  try {
    const cal = firstCalendar(ICAL.parse(`BEGIN:VCALENDAR\n${block.join("\n")}\nEND:VCALENDAR`));
    for (const sub of cal.getAllSubcomponents()) root.addSubcomponent(sub);
  } catch (error: unknown) {
    skipped.push({ ...identify(block), reason: `unparseable component: ${oneLine(error)}` });
  }
}

/** UID and SUMMARY of raw lines, for the skip report (TZID names a skipped time zone). */
function identify(lines: string[]): { uid?: string; summary?: string } {
  const value = (name: string) =>
    lines.find((l) => new RegExp(`^${name}[:;]`, "i").test(l))?.replace(/^[^:]*:/, "");
  return { uid: value("UID") ?? value("TZID"), summary: value("SUMMARY") };
}

/** The first line of an error's message: reasons are one line each. */
export const oneLine = (error: unknown): string => {
  const message = (error instanceof Error ? error.message : String(error)).split("\n")[0]?.trim();
  return message || "unknown error";
};
