import ICAL from "ical.js";
import { describe, expect, it } from "vitest";
import { demoEvents, localDate, renderIcs } from "#lib/local/demo-feed";

const START = Date.parse("2025-03-10T10:59:59.400Z");

describe("the demo feed", () => {
  it("places a short meeting about 20 s after start, another after a gap, focus later and OOO tomorrow", () => {
    // Act
    const events = demoEvents(START, "Europe/Berlin");
    // Assess
    const [standup, review, lunch, focus, ooo] = events;
    expect(standup?.start).toBe(Date.parse("2025-03-10T11:00:20Z"));
    // It ends inside the first minute, so the newcomer also sees the service's expiry.
    expect(standup?.end).toBe(Date.parse("2025-03-10T11:00:50Z"));
    expect(review && standup && review.start > standup.end).toBe(true);
    expect(lunch && review && lunch.start > review.end).toBe(true);
    // The lunch begins within 3 minutes of the start, under the demo user's own status.
    expect(lunch?.summary).toBe("Lunch with the team");
    expect(lunch && lunch.start - START <= 3 * 60_000).toBe(true);
    expect(focus && lunch && focus.start > lunch.end).toBe(true);
    expect(ooo?.allDay).toEqual({ start: "2025-03-11", end: "2025-03-12" });
  });

  it("takes tomorrow in the user's zone, not in UTC", () => {
    // 23:30 UTC on 10 March is already 11 March in Berlin.
    expect(localDate(Date.parse("2025-03-10T23:30:00Z"), "Europe/Berlin")).toBe("2025-03-11");
    const ooo = demoEvents(Date.parse("2025-03-10T23:30:00Z"), "Europe/Berlin").at(-1);
    expect(ooo?.allDay).toEqual({ start: "2025-03-12", end: "2025-03-13" });
  });

  it("renders ICS that ical.js parses back to the same events", () => {
    // Prepare
    const events = demoEvents(START, "Europe/Berlin");
    // Act
    const text = renderIcs(events, START);
    const parsed = new ICAL.Component(ICAL.parse(text))
      .getAllSubcomponents("vevent")
      .map((c) => new ICAL.Event(c));
    // Assess
    expect(text).toContain("\r\n");
    expect(parsed.map((e) => e.summary)).toEqual([
      "Team stand-up",
      "Design review",
      "Lunch with the team",
      "Focus time",
      "Out of office",
    ]);
    expect(parsed[0]?.startDate.toJSDate().getTime()).toBe(events[0]?.start);
    expect(parsed[1]?.endDate.toJSDate().getTime()).toBe(events[1]?.end);
    expect(parsed[4]?.startDate.isDate).toBe(true);
    expect(parsed[4]?.component.getFirstPropertyValue("x-microsoft-cdo-busystatus")).toBe("OOF");
  });

  it("marks a cancelled event with STATUS:CANCELLED", () => {
    // Prepare
    const [first] = demoEvents(START, "UTC");
    if (!first) throw new Error("demo has no events");
    // Act
    const text = renderIcs([{ ...first, cancelled: true }], START);
    // Assess
    expect(text).toMatch(/STATUS:CANCELLED\r\n/);
  });
});
