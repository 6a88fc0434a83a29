import { describe, expect, it } from "vitest";
import {
  type GoogleEvent,
  googleCalendarName,
  mapGoogleEvent,
  mapGoogleEvents,
  zonedMidnightOf,
} from "#lib/calendar/providers/google-events";
import { classify, userRulesSchema } from "#lib/core/rules";

/**
 * The Events resource's field meanings (Google Calendar API v3 reference), restated:
 * eventType focusTime / outOfOffice / workingLocation, status cancelled / tentative,
 * transparency transparent ("does not block time"), visibility private, the attendee with
 * self=true and responseStatus declined / tentative, all-day `date` (end exclusive).
 */
const timed = (over: Partial<GoogleEvent> = {}): GoogleEvent => ({
  id: "e1",
  status: "confirmed",
  summary: "Planning",
  start: { dateTime: "2026-03-02T10:00:00Z" },
  end: { dateTime: "2026-03-02T11:00:00Z" },
  ...over,
});

const rules = userRulesSchema.parse({});
const kindOf = (event: GoogleEvent, ruleOverrides: Record<string, unknown> = {}) => {
  const mapped = mapGoogleEvent(event, { zone: "Europe/Berlin" });
  if (mapped.kind === "skipped") return `skip:${mapped.reason}`;
  const c = classify(
    mapped.occurrence,
    userRulesSchema.parse({ showTitles: true, ...ruleOverrides }),
  );
  return "skip" in c ? `skip:${c.skip}` : `${c.kind}:${c.text}`;
};

describe("mapGoogleEvent, by the Events resource's field meanings", () => {
  it.each([
    ["a confirmed meeting is a meeting, titled", timed(), "meeting:Planning"],
    [
      "focusTime is focus even without a focus keyword",
      timed({ eventType: "focusTime", summary: "Writing" }),
      "focus:Writing",
    ],
    [
      "outOfOffice is out of office even without a keyword",
      timed({ eventType: "outOfOffice", summary: "Away" }),
      "ooo:Away",
    ],
    [
      "outOfOffice stays out of office when shown as free",
      timed({ eventType: "outOfOffice", summary: "Away", transparency: "transparent" }),
      "ooo:Away",
    ],
    [
      "workingLocation makes no status",
      timed({ eventType: "workingLocation", summary: "Office" }),
      "skip:working location",
    ],
    ["cancelled makes no occurrence", timed({ status: "cancelled" }), "skip:cancelled"],
    [
      "transparent (available) is skipped",
      timed({ transparency: "transparent" }),
      "skip:transparent (shown as free)",
    ],
    [
      "declined by the self attendee is skipped",
      timed({
        attendees: [
          { email: "other@x.test", responseStatus: "accepted" },
          { email: "me@x.test", self: true, responseStatus: "declined" },
        ],
      }),
      "skip:declined by the user",
    ],
    [
      "declined by someone else is still the user's meeting",
      timed({
        attendees: [
          { email: "other@x.test", responseStatus: "declined" },
          { email: "me@x.test", self: true, responseStatus: "accepted" },
        ],
      }),
      "meeting:Planning",
    ],
    ["private hides the title", timed({ visibility: "private" }), "meeting:In a meeting"],
  ])("%s", (_name, event, expected) => {
    expect(kindOf(event)).toBe(expected);
  });

  it("tentative follows the user's rule", () => {
    const self = { email: "me@x.test", self: true, responseStatus: "tentative" };
    const event = timed({ attendees: [self] });
    expect(kindOf(event, { skipTentative: false })).toBe("meeting:Planning");
    expect(kindOf(event, { skipTentative: true })).toBe("skip:tentative");
    const tentativeEvent = timed({ status: "tentative" });
    expect(kindOf(tentativeEvent, { skipTentative: true })).toBe("skip:tentative");
  });

  it("all-day `date` values run from midnight to midnight in the user's zone", () => {
    const mapped = mapGoogleEvent(
      timed({
        eventType: "outOfOffice",
        start: { date: "2026-03-02" },
        end: { date: "2026-03-04" },
      }),
      { zone: "Europe/Berlin" },
    );
    expect(mapped.kind).toBe("occurrence");
    if (mapped.kind !== "occurrence") return;
    // Berlin is UTC+1 in March before the change: midnight is 23:00 UTC the day before.
    expect(new Date(mapped.occurrence.start).toISOString()).toBe("2026-03-01T23:00:00.000Z");
    expect(new Date(mapped.occurrence.end).toISOString()).toBe("2026-03-03T23:00:00.000Z");
    expect(mapped.occurrence.allDay).toBe(true);
    expect(classify(mapped.occurrence, rules)).toMatchObject({ kind: "ooo" });
  });

  it("midnight on a daylight-saving day uses that day's offset", () => {
    // Berlin switches to UTC+2 on 2026-03-29 at 01:00 UTC; midnight that day is still UTC+1.
    expect(new Date(zonedMidnightOf("2026-03-29", "Europe/Berlin") ?? 0).toISOString()).toBe(
      "2026-03-28T23:00:00.000Z",
    );
    expect(new Date(zonedMidnightOf("2026-03-30", "Europe/Berlin") ?? 0).toISOString()).toBe(
      "2026-03-29T22:00:00.000Z",
    );
    expect(zonedMidnightOf("2026-03-30", "Not/AZone")).toBe(Date.UTC(2026, 2, 30));
  });

  it("keeps the window's occurrences only, in start order, and says what was skipped", () => {
    const from = Date.parse("2026-03-02T00:00:00Z");
    const to = Date.parse("2026-03-03T00:00:00Z");
    const { occurrences, skipped } = mapGoogleEvents(
      [
        timed({
          id: "late",
          start: { dateTime: "2026-03-02T15:00:00Z" },
          end: { dateTime: "2026-03-02T16:00:00Z" },
        }),
        timed({ id: "early" }),
        timed({
          id: "outside",
          start: { dateTime: "2026-03-04T10:00:00Z" },
          end: { dateTime: "2026-03-04T11:00:00Z" },
        }),
        timed({ id: "gone", status: "cancelled" }),
        timed({ id: "free", transparency: "transparent" }),
      ],
      { zone: "UTC", from, to },
    );
    expect(occurrences.map((o) => o.uid)).toEqual(["early", "late"]);
    expect(skipped).toEqual([{ uid: "free", reason: "transparent (shown as free)" }]);
  });
});

describe("googleCalendarName", () => {
  it("is the list's title and the address Google marks as the account's own", () => {
    const mine = {
      id: "e1",
      creator: { email: "ada@example.com", self: true },
      attendees: [{ email: "bo@example.com" }],
    };
    const theirs = { id: "e2", organizer: { email: "cy@example.com" } };
    expect(googleCalendarName("Work", [theirs, mine])).toBe("Work (ada@example.com)");
    expect(googleCalendarName("ada@example.com", [mine])).toBe("ada@example.com");
    expect(googleCalendarName("Work", [theirs])).toBe("Work");
    expect(googleCalendarName(undefined, [])).toBeUndefined();
  });
});
