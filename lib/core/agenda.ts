import type { Occurrence } from "./types";

/**
 * A calendar's events near today, kept from each sync that expands it, so the settings page can
 * say why each of today's events shows what it shows (explain.ts) without reading the calendar
 * again. Only what the rules read of an event is kept; the title is the person's own data,
 * shown to them alone and never logged.
 */
export type AgendaEvent = Pick<
  Occurrence,
  | "uid"
  | "start"
  | "end"
  | "allDay"
  | "summary"
  | "status"
  | "transp"
  | "busyStatus"
  | "class"
  | "partstat"
  | "attendeeCount"
  | "guests"
  | "online"
>;

/** At most this many events a calendar: a feed with hundreds a day keeps the first ones. */
export const AGENDA_LIMIT = 300;
/** Titles are cut to this many characters (a status text is at most 100). */
export const AGENDA_TITLE_LIMIT = 200;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The stretch a sync at `now` keeps: from `from` (where its expansion starts) until the end of
 * the day the next expansion may fall in. An unchanged calendar is expanded again once per
 * refresh window (`refreshMs`), so "today" must be covered until then plus the longest day (25
 * hours) and a poll's lateness (2 hours is ample).
 */
export const agendaWindow = (
  from: number,
  now: number,
  refreshMs: number,
): { from: number; to: number } => ({ from, to: now + refreshMs + DAY_MS + 2 * HOUR_MS });

/** The events of `occurrences` that overlap [from, to), by start, trimmed to what is kept. */
export function agendaOf(
  occurrences: readonly Occurrence[],
  window: { from: number; to: number },
): AgendaEvent[] {
  return occurrences
    .filter((o) => o.start < window.to && o.end > window.from)
    .sort((a, b) => a.start - b.start || a.end - b.end)
    .slice(0, AGENDA_LIMIT)
    .map((o) => {
      const title = [...o.summary];
      const kept: AgendaEvent = {
        uid: o.uid,
        start: o.start,
        end: o.end,
        allDay: o.allDay,
        summary:
          title.length > AGENDA_TITLE_LIMIT
            ? title.slice(0, AGENDA_TITLE_LIMIT).join("")
            : o.summary,
        attendeeCount: o.attendeeCount,
      };
      for (const member of OPTIONAL_MEMBERS) {
        if (o[member] !== undefined) Object.assign(kept, { [member]: o[member] });
      }
      return kept;
    });
}

const OPTIONAL_MEMBERS = [
  "status",
  "transp",
  "busyStatus",
  "class",
  "partstat",
  "guests",
  "online",
] as const satisfies readonly (keyof AgendaEvent)[];

/** The occurrences an agenda stands for, each stamped with its calendar (as the sync does). */
export const occurrencesOf = (sourceId: string, events: readonly AgendaEvent[]): Occurrence[] =>
  events.map((e) => ({ ...e, sourceId }));
