import { describe, expect, it } from "vitest";
import {
  accountCalendarName,
  cleanCalendarName,
  feedName,
  icsCalendarName,
} from "#lib/calendar/calendar-name";

// A calendar's display name, so a person with three calendars can tell them apart.

const calendar = (...lines: string[]) =>
  [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    ...lines,
    "BEGIN:VEVENT",
    "X-WR-CALNAME:Not this",
    "END:VEVENT",
    "END:VCALENDAR",
  ].join("\r\n");

describe("an ICS feed's name", () => {
  it("is its X-WR-CALNAME, unfolded and unescaped", () => {
    expect(icsCalendarName(calendar("X-WR-CALNAME:Family"))).toBe("Family");
    expect(icsCalendarName(calendar("X-WR-CALNAME;VALUE=TEXT:Team\\, Berlin\\; on-call"))).toBe(
      "Team, Berlin; on-call",
    );
    expect(icsCalendarName(calendar("X-WR-CALNAME:A very long", "  name folded"))).toBe(
      "A very long name folded",
    );
    expect(icsCalendarName(calendar("x-wr-calname:Lower"))).toBe("Lower");
  });

  it("is none when the calendar has none (a component's own does not count)", () => {
    expect(icsCalendarName(calendar())).toBeUndefined();
    expect(icsCalendarName(calendar("X-WR-CALNAME:  "))).toBeUndefined();
  });

  it("else is the host and a file name that reads as one, never a secret path", () => {
    expect(feedName("https://calendar.example.com/feeds/holidays.ics")).toBe(
      "calendar.example.com holidays.ics",
    );
    expect(feedName("https://outlook.office365.com/owa/calendar/a1b2/c3d4e5/calendar.ics")).toBe(
      "outlook.office365.com calendar.ics",
    );
    expect(feedName("https://p01.icloud.com/published/2/MTIzNDU2Nzg5")).toBe("p01.icloud.com");
    expect(feedName("https://cal.example/u/8f3a9b7c2d.ics")).toBe("cal.example");
    expect(feedName("not a url")).toBeUndefined();
  });
});

describe("a connected calendar's name", () => {
  it("is its title and account address, once when they are the same", () => {
    expect(accountCalendarName("Work", "ada@example.com")).toBe("Work (ada@example.com)");
    expect(accountCalendarName("ada@example.com", "ADA@example.com")).toBe("ada@example.com");
    expect(accountCalendarName(undefined, "ada@example.com")).toBe("ada@example.com");
    expect(accountCalendarName("Work", undefined)).toBe("Work");
  });

  it("is kept to one line of at most 100 characters", () => {
    expect(cleanCalendarName("a\nb\tc\u0000d")).toBe("a b c d");
    const long = cleanCalendarName("x".repeat(150)) ?? "";
    expect([...long]).toHaveLength(100);
    expect(long.endsWith("…")).toBe(true);
  });
});
