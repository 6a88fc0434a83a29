/**
 * The demo calendar: events placed relative to the moment the stack starts, so a newcomer sees
 * a status change within the first minute.
 */

export interface DemoEvent {
  uid: string;
  summary: string;
  start: number;
  end: number;
  /** All-day events carry dates (YYYY-MM-DD, in the user's zone) instead of instants. */
  allDay?: { start: string; end: string };
  busyStatus?: "BUSY" | "OOF" | "FREE";
  cancelled?: boolean;
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** ICS UTC form: 20250310T120020Z. */
export const icsUtc = (epochMs: number): string => {
  const d = new Date(epochMs);
  return `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(
    d.getUTCHours(),
  )}${pad(d.getUTCMinutes())}${pad(d.getUTCSeconds())}Z`;
};

/** The calendar date (YYYY-MM-DD) of an instant in a time zone. */
export const localDate = (epochMs: number, timeZone: string): string => {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).formatToParts(epochMs);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${get("year")}-${get("month")}-${get("day")}`;
};

const addDays = (date: string, days: number): string => {
  const [y, m, d] = date.split("-").map(Number);
  const t = Date.UTC(y ?? 1970, (m ?? 1) - 1, (d ?? 1) + days);
  return new Date(t).toISOString().slice(0, 10);
};

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/**
 * The demo day, so the first minute shows more than one line: a 30 s stand-up about 20 s after
 * `startedAt` (set, then cleared by the service's own expiry at 50 s), a design review from
 * 70 s to 2 min, lunch from 2:20 to 3:50 (the demo user's own "Lunch" status, demo.ts), focus
 * time from 5 to 8 min, and out-of-office all day tomorrow (in `timeZone`).
 */
export function demoEvents(startedAt: number, timeZone: string): DemoEvent[] {
  // Whole seconds: ICS has no finer resolution.
  const base = Math.ceil(startedAt / SECOND) * SECOND;
  const today = localDate(startedAt, timeZone);
  return [
    {
      uid: "demo-standup@statuspilot.local",
      summary: "Team stand-up",
      start: base + 20 * SECOND,
      end: base + 50 * SECOND,
      busyStatus: "BUSY",
    },
    {
      uid: "demo-review@statuspilot.local",
      summary: "Design review",
      start: base + 70 * SECOND,
      end: base + 2 * MINUTE,
      busyStatus: "BUSY",
    },
    {
      uid: "demo-lunch@statuspilot.local",
      summary: "Lunch with the team",
      start: base + 2 * MINUTE + 20 * SECOND,
      end: base + 3 * MINUTE + 50 * SECOND,
      busyStatus: "BUSY",
    },
    {
      uid: "demo-focus@statuspilot.local",
      summary: "Focus time",
      start: base + 5 * MINUTE,
      end: base + 8 * MINUTE,
      busyStatus: "BUSY",
    },
    {
      uid: "demo-ooo@statuspilot.local",
      summary: "Out of office",
      start: 0,
      end: 0,
      allDay: { start: addDays(today, 1), end: addDays(today, 2) },
      busyStatus: "OOF",
    },
  ];
}

const escapeText = (s: string): string =>
  s.replace(/\\/g, "\\\\").replace(/;/g, "\\;").replace(/,/g, "\\,").replace(/\n/g, "\\n");

/** Renders events as an ICS feed, the way a calendar's secret address serves it. */
export function renderIcs(events: readonly DemoEvent[], stampedAt: number): string {
  const lines = [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Statuspilot//Demo feed//EN",
    "CALSCALE:GREGORIAN",
    "X-WR-CALNAME:Statuspilot demo",
  ];
  for (const e of events) {
    lines.push("BEGIN:VEVENT", `UID:${e.uid}`, `DTSTAMP:${icsUtc(stampedAt)}`);
    if (e.allDay) {
      lines.push(
        `DTSTART;VALUE=DATE:${e.allDay.start.replaceAll("-", "")}`,
        `DTEND;VALUE=DATE:${e.allDay.end.replaceAll("-", "")}`,
      );
    } else {
      lines.push(`DTSTART:${icsUtc(e.start)}`, `DTEND:${icsUtc(e.end)}`);
    }
    lines.push(`SUMMARY:${escapeText(e.summary)}`);
    if (e.busyStatus) lines.push(`X-MICROSOFT-CDO-BUSYSTATUS:${e.busyStatus}`);
    lines.push(`STATUS:${e.cancelled ? "CANCELLED" : "CONFIRMED"}`, "TRANSP:OPAQUE", "END:VEVENT");
  }
  lines.push("END:VCALENDAR");
  // RFC 5545 lines end in CRLF.
  return `${lines.join("\r\n")}\r\n`;
}
