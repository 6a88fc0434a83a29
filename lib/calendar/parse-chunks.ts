import type ICAL from "ical.js";
import { type CalendarWarning, parseFeed, type SkippedEvent } from "./parse";
import type { Work, WorkMeter } from "./work-budget";

/**
 * A feed larger than this is parsed in pieces of about this size, giving way between them: a
 * 10 MB feed parsed at once holds the thread for seconds, a piece for some tens of ms.
 */
export const PARSE_CHUNK_BYTES = 256 * 1024;

/** Where a top-level event begins: a line of its own (a folded line starts with a blank). */
const EVENT_START = /\r?\nBEGIN:VEVENT[ \t]*\r?\n/gi;

/**
 * `parseFeed`, a piece at a time: what precedes the first event (the calendar's properties,
 * its time zones) is the calendar, and the events follow in pieces cut where an event begins,
 * each parsed as a calendar of its own (the same repairs, a broken one read leniently alone) and
 * added in order, with any calendar property it brings that the first piece lacked. A piece
 * that is no calendar at all costs its own events (skipped), not the feed.
 */
export function* parseInChunks(
  text: string,
  skipped: SkippedEvent[],
  warnings: CalendarWarning[],
  meter: WorkMeter,
): Work<ICAL.Component> {
  const cuts = cutsOf(text);
  if (cuts.length === 0) return parseFeed(text, skipped, warnings);
  const head = text.slice(0, cuts[0]);
  const root = parseFeed(`${head}\r\nEND:VCALENDAR\r\n`, skipped, warnings);
  for (const [i, at] of cuts.entries()) {
    if (meter.step()) yield;
    const piece = text.slice(at, cuts[i + 1] ?? text.length);
    const closed = /END:VCALENDAR\s*$/i.test(piece) ? piece : `${piece}\r\nEND:VCALENDAR\r\n`;
    let part: ICAL.Component;
    try {
      part = parseFeed(`BEGIN:VCALENDAR${closed}`, skipped, warnings);
    } catch {
      // Nothing of the piece survived the lenient parse; its components are in `skipped`.
      continue;
    }
    // Copies of the lists: adding a component elsewhere takes it out of its parent's.
    for (const sub of [...part.getAllSubcomponents()]) root.addSubcomponent(sub);
    for (const prop of [...part.getAllProperties()]) {
      if (!root.hasProperty(prop.name)) root.addProperty(prop);
    }
  }
  return root;
}

/** Offsets of the line breaks before the events that start each piece, for a large feed. */
function cutsOf(text: string): number[] {
  if (text.length <= PARSE_CHUNK_BYTES) return [];
  const cuts: number[] = [];
  let next = 0;
  for (const match of text.matchAll(EVENT_START)) {
    if (match.index >= next) {
      cuts.push(match.index);
      next = match.index + PARSE_CHUNK_BYTES;
    }
  }
  return cuts;
}
