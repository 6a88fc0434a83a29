import ICAL from "ical.js";
import { CalendarParseError } from "./errors";

/** An event (or time zone) that could not be used, and why. */
export interface SkippedEvent {
  uid?: string;
  summary?: string;
  reason: string;
}

/**
 * Something in the feed that was wrong or unreadable but cost less than an event: a dropped
 * line, an ignored property, a time zone that had to be guessed. Logged, never fatal.
 */
export interface CalendarWarning {
  uid?: string;
  /** The time zone name, for a guessed zone. */
  tzid?: string;
  message: string;
}

/** Top-level components that the lenient parse cuts the feed into. */
const TOP_LEVEL = /^BEGIN:(VEVENT|VTIMEZONE|VTODO|VJOURNAL|VFREEBUSY|VAVAILABILITY)\s*$/i;

/**
 * Parses a feed into its VCALENDAR. Throws CalendarParseError only when the text is not
 * iCalendar at all: no BEGIN:VCALENDAR, or not one component survives the lenient parse.
 * Every component lost on the way is recorded in `skipped` with its reason, every malformed line
 * dropped from a component that survives in `warnings`.
 */
export function parseFeed(
  text: string,
  skipped: SkippedEvent[],
  warnings: CalendarWarning[],
): ICAL.Component {
  if (!/BEGIN:VCALENDAR/i.test(text)) {
    throw new CalendarParseError("not an iCalendar feed: no BEGIN:VCALENDAR");
  }
  // Blank lines are not content lines; some producers emit them inside components.
  const unfolded = text
    .replace(/\r\n?/g, "\n")
    .replace(/\n{2,}/g, "\n")
    .replace(/^\n/, "")
    // Unfolded here (RFC 5545 §3.1) so that the line-wise repairs below see whole properties.
    .replace(/\n[ \t]/g, "")
    .replace(BARE_DATE, "$1;VALUE=DATE$2")
    .replace(TYPED_TEXT, "$1")
    .replace(RULE_LINE, (line) => line.replace(/[ \t]+/g, ""));
  // Most feeds have no TZID to quote; the cheap test spares them the line-by-line pass.
  const clean = UNQUOTED_TZID_WITH_COLON_OR_COMMA.test(unfolded)
    ? unfolded.replace(ZONED_DATE_LINE, quoteTzid)
    : unfolded;
  try {
    return firstCalendar(ICAL.parse(clean));
  } catch (error: unknown) {
    return parseLeniently(clean, skipped, warnings, error);
  }
}

/**
 * A recurrence rule never holds meaningful blanks, but "BYDAY=MO, WE, FR" is written by hand and
 * by some producers; ical.js refuses " WE" as a weekday and would lose the whole event.
 */
const RULE_LINE = /^(?:RRULE|EXRULE)[;:].*$/gim;

/**
 * A TZID whose unquoted value holds a colon or comma, so another colon follows on its line.
 * Its character classes do not overlap, so the test stays linear on hostile input.
 */
const UNQUOTED_TZID_WITH_COLON_OR_COMMA = /;TZID=[^";:,\n]*[:,][^\n:;]*:/i;

/** Date-valued properties whose TZID parameter may carry an unquoted display name. */
const ZONED_DATE_LINE = /^(?:DTSTART|DTEND|DUE|RECURRENCE-ID|RDATE|EXDATE);.*TZID=[^"].*$/gim;

/**
 * Quotes a TZID parameter value holding ":" or "," ("TZID=(GMT +01:00):2025..."), as RFC 5545
 * §3.2 requires; unquoted, the colon would split the line and garble the date. A date value
 * never holds a colon, so the value is what follows the last one.
 */
function quoteTzid(line: string): string {
  const colon = line.lastIndexOf(":");
  const value = line.slice(colon + 1);
  if (colon < 0 || !/^[\dTZ,/PHMSDW+.-]*$/i.test(value)) return line;
  const head = line.slice(0, colon);
  const tzid = /;TZID=(?!")(.*?)(?=;[A-Za-z-]+=|$)/i.exec(head);
  if (!tzid?.[1] || !/[:,]/.test(tzid[1])) return line;
  const quoted = `;TZID="${tzid[1].replace(/"/g, "")}"`;
  return `${head.slice(0, tzid.index)}${quoted}${head.slice(tzid.index + tzid[0].length)}:${value}`;
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
    // A copy of the list: adding a component to `first` takes it out of `extra`'s.
    for (const sub of [...extra.getAllSubcomponents()]) first.addSubcomponent(sub);
  }
  return first;
}

/**
 * Parses component by component, so one malformed component costs only itself. A component
 * whose END line is missing or garbled ends where the next top-level component (or the
 * calendar) begins or ends; it is skipped rather than allowed to swallow what follows.
 */
function parseLeniently(
  text: string,
  skipped: SkippedEvent[],
  warnings: CalendarWarning[],
  cause: unknown,
): ICAL.Component {
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
        addBlock(root, block, skipped, warnings);
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

/**
 * Adds one component. If it does not parse, the lines that do not parse on their own are dropped
 * (each with a warning), so a stray malformed line costs that line, not the event.
 */
function addBlock(
  root: ICAL.Component,
  block: string[],
  skipped: SkippedEvent[],
  warnings: CalendarWarning[],
): void {
  const add = (lines: string[]) => {
    const cal = firstCalendar(ICAL.parse(`BEGIN:VCALENDAR\n${lines.join("\n")}\nEND:VCALENDAR`));
    for (const sub of cal.getAllSubcomponents()) root.addSubcomponent(sub);
  };
  try {
    add(block);
    return;
  } catch (error: unknown) {
    const bad = block.filter((line) => !isComponentEdge(line) && !parsesAlone(line));
    try {
      if (bad.length === 0) throw error;
      add(block.filter((line) => !bad.includes(line)));
    } catch {
      skipped.push({ ...identify(block), reason: `unparseable component: ${oneLine(error)}` });
      return;
    }
    const { uid } = identify(block);
    for (const line of bad) {
      warnings.push({ uid, message: `dropped a malformed ${propertyName(line)} line` });
    }
  }
}

const isComponentEdge = (line: string): boolean => /^(BEGIN|END):/i.test(line);

function parsesAlone(line: string): boolean {
  try {
    ICAL.parse(`BEGIN:VCALENDAR\nBEGIN:VEVENT\n${line}\nEND:VEVENT\nEND:VCALENDAR`);
    return true;
  } catch {
    return false;
  }
}

/** The name a content line starts with, for a warning that does not repeat the line's text. */
const propertyName = (line: string): string =>
  (/^[A-Za-z0-9-]{1,40}/.exec(line)?.[0] ?? "unnamed").toUpperCase();

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
