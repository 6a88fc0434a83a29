import { describe, expect, it } from "vitest";
import { type GraphEvent, mapGraphEvent, midnightIn } from "#lib/calendar/providers/graph-map";
import { classify, DEFAULT_RULES, type UserRules } from "#lib/core/rules";

// The mapping of Graph events, table-driven from the documented field meanings (event resource:
// showAs, isCancelled, responseStatus.response, sensitivity, isAllDay; times in UTC under
// `Prefer: outlook.timezone="UTC"`), and what our rules then make of each occurrence.

const base: GraphEvent = {
  id: "AAMk-1",
  subject: "Planning",
  start: { dateTime: "2026-11-24T09:00:00.0000000", timeZone: "UTC" },
  end: { dateTime: "2026-11-24T10:00:00.0000000", timeZone: "UTC" },
  isAllDay: false,
  isCancelled: false,
  showAs: "busy",
  sensitivity: "normal",
  responseStatus: { response: "organizer" },
};
const ev = (over: Partial<GraphEvent>): GraphEvent => ({ ...base, ...over });
const NINE = Date.UTC(2026, 10, 24, 9);
const TEN = Date.UTC(2026, 10, 24, 10);

/** The status kind our rules give the mapped occurrence, or "none". */
function statusOf(e: GraphEvent, rules = DEFAULT_RULES): string {
  const mapped = mapGraphEvent(e, "Europe/Berlin");
  if ("skip" in mapped) return "none";
  const c = classify(mapped.occurrence, rules);
  return "skip" in c ? "none" : c.kind;
}

describe("mapGraphEvent", () => {
  it.each([
    ["oof", "ooo"],
    ["busy", "meeting"],
    ["free", "none"],
    ["workingElsewhere", "none"],
  ])("showAs %s sets %s", (showAs, kind) => {
    expect(statusOf(ev({ showAs }))).toBe(kind);
  });

  it("tentative follows the user's rule", () => {
    expect(statusOf(ev({ showAs: "tentative" }), { ...DEFAULT_RULES, skipTentative: true })).toBe(
      "none",
    );
    expect(statusOf(ev({ showAs: "tentative" }), { ...DEFAULT_RULES, skipTentative: false })).toBe(
      "meeting",
    );
    const accepted = ev({ responseStatus: { response: "tentativelyAccepted" } });
    expect(statusOf(accepted, { ...DEFAULT_RULES, skipTentative: true })).toBe("none");
  });

  it("a cancelled event and a declined one make no occurrence", () => {
    expect(mapGraphEvent(ev({ isCancelled: true }), "UTC")).toEqual({
      skip: { reason: "cancelled", uid: "AAMk-1" },
    });
    expect(mapGraphEvent(ev({ responseStatus: { response: "declined" } }), "UTC")).toEqual({
      skip: { reason: "declined by the user", uid: "AAMk-1" },
    });
  });

  it("reads times as UTC and keeps title, location and attendee count", () => {
    const mapped = mapGraphEvent(
      ev({ location: { displayName: "Room 1" }, attendees: [{}, {}] }),
      "America/New_York",
    );
    expect(mapped).toEqual({
      occurrence: {
        uid: "AAMk-1",
        start: NINE,
        end: TEN,
        allDay: false,
        summary: "Planning",
        attendeeCount: 2,
        guests: 0,
        busyStatus: "BUSY",
        location: "Room 1",
      },
    });
  });

  it("a private event's title never shows, even when titles are shown", () => {
    const rules: UserRules = { ...DEFAULT_RULES, showTitles: true };
    const shown = classify(
      (mapGraphEvent(ev({}), "UTC") as { occurrence: never }).occurrence,
      rules,
    );
    expect(shown).toMatchObject({ text: "Planning" });
    for (const sensitivity of ["private", "confidential"]) {
      const mapped = mapGraphEvent(ev({ sensitivity }), "UTC");
      const c = classify((mapped as { occurrence: never }).occurrence, rules);
      expect(c).toMatchObject({ kind: "meeting", text: DEFAULT_RULES.meeting.text });
    }
  });

  it("an all-day event runs midnight to midnight in the owner's zone", () => {
    const allDay = ev({
      isAllDay: true,
      showAs: "oof",
      start: { dateTime: "2026-11-24T00:00:00.0000000", timeZone: "UTC" },
      end: { dateTime: "2026-11-26T00:00:00.0000000", timeZone: "UTC" },
    });
    const mapped = mapGraphEvent(allDay, "Europe/Berlin");
    // Berlin is UTC+1 in November: its midnight is 23:00 UTC the day before.
    expect(mapped).toMatchObject({
      occurrence: {
        allDay: true,
        start: Date.UTC(2026, 10, 23, 23),
        end: Date.UTC(2026, 10, 25, 23),
      },
    });
    expect(statusOf(allDay)).toBe("ooo");
    expect(statusOf({ ...allDay, showAs: "busy" })).toBe("none");
  });

  it("an event in another zone than UTC (the preference not applied) is skipped, not misread", () => {
    const local = ev({
      start: { dateTime: "2026-11-24T09:00:00.0000000", timeZone: "Pacific Standard Time" },
    });
    expect(mapGraphEvent(local, "UTC")).toEqual({
      skip: { reason: "unreadable start or end", uid: "AAMk-1" },
    });
  });

  it("midnightIn handles zones on both sides of UTC and a DST change day", () => {
    expect(midnightIn(2026, 7, 1, "America/Los_Angeles")).toBe(Date.UTC(2026, 6, 1, 7));
    expect(midnightIn(2026, 7, 1, "Asia/Tokyo")).toBe(Date.UTC(2026, 5, 30, 15));
    // Europe/Berlin moves to summer time on 29 March 2026 at 02:00: midnight is still UTC+1.
    expect(midnightIn(2026, 3, 29, "Europe/Berlin")).toBe(Date.UTC(2026, 2, 28, 23));
    expect(midnightIn(2026, 3, 30, "Europe/Berlin")).toBe(Date.UTC(2026, 2, 29, 22));
  });
});

describe("mapGraphEvent: video calls and guests", () => {
  const online = (e: GraphEvent) => {
    const mapped = mapGraphEvent(e, "UTC");
    return "occurrence" in mapped ? mapped.occurrence.online === true : undefined;
  };

  it("reads isOnlineMeeting, or an onlineMeeting joinUrl alone, as a video call", () => {
    expect(online(ev({ isOnlineMeeting: true }))).toBe(true);
    expect(online(ev({ onlineMeeting: { joinUrl: "https://teams.microsoft.com/l/x" } }))).toBe(
      true,
    );
    expect(online(ev({ isOnlineMeeting: false, onlineMeeting: null }))).toBe(false);
  });

  it("counts attendees and a foreign organizer, not the owner nor a room", () => {
    const person = (address: string, type = "required") => ({ type, emailAddress: { address } });
    const guests = (e: GraphEvent, emails: string[]) => {
      const mapped = mapGraphEvent(e, "UTC", emails);
      return "occurrence" in mapped ? mapped.occurrence.guests : undefined;
    };
    const invite = ev({
      isOrganizer: false,
      organizer: person("cy@example.com"),
      attendees: [person("me@example.com"), person("room@example.com", "resource")],
    });
    expect(guests(invite, ["ME@example.com"])).toBe(1);
    expect(guests(invite, [])).toBe(1);
    const mine = ev({ isOrganizer: true, organizer: person("me@example.com"), attendees: [] });
    expect(guests(mine, [])).toBe(0);
  });
});
