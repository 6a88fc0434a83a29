import { createHash } from "node:crypto";
import type { GoogleControl } from "./control";

/**
 * Puts a demo day into an emulated Google calendar, so the local stack's demo user can be a
 * Google one. It takes the local stack's demo events (the shape of lib/local/demo-feed.ts's
 * DemoEvent, restated here so the emulator does not depend on the stack) and writes each as the
 * Google event it would be: BUSY a default event, OOF an `outOfOffice` one, FREE a transparent
 * one, a cancelled one `status: cancelled`, all-day ones with `date` values.
 */
export interface DemoCalendarEvent {
  uid: string;
  summary: string;
  start: number;
  end: number;
  allDay?: { start: string; end: string };
  busyStatus?: "BUSY" | "OOF" | "FREE";
  cancelled?: boolean;
}

/** A stable Google event id for a demo uid (hex digits are within Google's base32hex). */
export const demoEventId = (uid: string): string =>
  createHash("sha256").update(uid).digest("hex").slice(0, 26);

export function seedGoogleDemo(
  control: GoogleControl,
  calendar: string,
  events: readonly DemoCalendarEvent[],
  timeZone = "UTC",
): string[] {
  return events.map((e) => {
    const times = e.allDay
      ? { start: { date: e.allDay.start }, end: { date: e.allDay.end } }
      : {
          start: { dateTime: new Date(e.start).toISOString(), timeZone },
          end: { dateTime: new Date(e.end).toISOString(), timeZone },
        };
    const added = control.addEvent(calendar, {
      id: demoEventId(e.uid),
      summary: e.summary,
      ...times,
      ...(e.busyStatus === "OOF" ? { eventType: "outOfOffice" } : {}),
      ...(e.busyStatus === "FREE" ? { transparency: "transparent" } : {}),
      ...(e.cancelled ? { status: "cancelled" } : {}),
    });
    return String(added.id);
  });
}
