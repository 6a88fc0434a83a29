import { describe, expect, it } from "vitest";
import { expectedStatusAt, outOfOfficeWording } from "#bench/soak/oracle";
import type { CalendarEvent, UserPlan } from "#bench/soak/scenario";

const at = (hhmm: string) => Date.parse(`2026-03-09T${hhmm}:00Z`);
const s = (hhmm: string) => at(hhmm) / 1000;

const meeting = { text: "In a meeting", emoji: ":spiral_calendar_pad:" };
const focus = { text: "Focus time", emoji: ":headphones:" };
const none = { text: "", emoji: "", expiration: 0 };

let n = 0;
const event = (
  from: string,
  to: string,
  title = "Design review",
  extra: Partial<CalendarEvent> = {},
): CalendarEvent => ({
  uid: `e${++n}`,
  title,
  start: at(from),
  end: at(to),
  sequence: 0,
  cancelled: false,
  ...extra,
});

const userWith = (events: CalendarEvent[], over: Partial<UserPlan> = {}): UserPlan => ({
  id: "U0001",
  tz: "UTC",
  events,
  edits: [],
  ooo: [],
  ...over,
});

describe("the soak's oracle (written from the README's rules)", () => {
  it("ranks focus above a meeting it overlaps, and the meeting expires where the focus starts", () => {
    // Prepare
    const user = userWith([event("09:00", "10:00"), event("09:30", "09:45", "Deep work")]);
    // Act
    const statuses = ["09:10", "09:35", "09:50"].map((t) => expectedStatusAt(user, at(t)));
    // Assess
    expect(statuses).toEqual([
      { ...meeting, expiration: s("09:30") },
      { ...focus, expiration: s("09:45") },
      { ...meeting, expiration: s("10:00") },
    ]);
  });

  it("merges back-to-back and overlapping meetings into one status that expires at the last end", () => {
    // Prepare
    const user = userWith([
      event("09:00", "09:30"),
      event("09:30", "10:00", "Standup"),
      event("09:50", "10:15", "1:1 with Dana"),
    ]);
    // Act
    const status = expectedStatusAt(user, at("09:05"));
    // Assess
    expect(status).toEqual({ ...meeting, expiration: s("10:15") });
  });

  it("shows no status for cancelled, declined, tentative and transparent events", () => {
    // Prepare
    const skipped = [
      { cancelled: true },
      { partstat: "DECLINED" as const },
      { partstat: "TENTATIVE" as const },
      { tentative: true },
      { transparent: true },
    ];
    // Act
    const statuses = skipped.map((extra) =>
      expectedStatusAt(userWith([event("09:00", "10:00", "Planning", extra)]), at("09:30")),
    );
    // Assess
    expect(statuses).toEqual(skipped.map(() => none));
  });

  it("never shows a title, private or not", () => {
    // Prepare
    const user = userWith([
      event("09:00", "09:30", "1:1 with Dana", { private: true, partstat: "ACCEPTED" }),
    ]);
    // Act
    const status = expectedStatusAt(user, at("09:10"));
    // Assess
    expect(status).toEqual({ ...meeting, expiration: s("09:30") });
  });

  it("puts an all-day leave in the user's zone and words its last day; an all-day offsite sets nothing", () => {
    // Prepare: 9 March in Tokyo is 8 March 15:00 to 9 March 15:00 UTC.
    const date = Date.UTC(2026, 2, 9);
    const allDay = (title: string) => ({
      ...event("00:00", "00:00", title),
      start: date,
      end: date + 86_400_000,
      allDay: true,
    });
    const leave = userWith([allDay("Annual leave"), event("14:00", "16:00")], {
      tz: "Asia/Tokyo",
    });
    const offsite = userWith([allDay("Team offsite")], { tz: "Asia/Tokyo" });
    // Act
    const during = expectedStatusAt(leave, at("14:30"));
    const after = expectedStatusAt(leave, at("15:00"));
    const offsiteStatus = expectedStatusAt(offsite, at("12:00"));
    // Assess
    expect(during).toEqual({
      text: "Out of office until Mon, 9 Mar",
      emoji: ":palm_tree:",
      expiration: s("15:00"),
    });
    expect(after).toEqual({ ...meeting, expiration: s("16:00") });
    expect(offsiteStatus).toEqual(none);
  });

  it("ranks out-of-office from keywords or the admin API above everything, from when it was scheduled", () => {
    // Prepare: Berlin is UTC+1 on 9 March.
    const user = userWith([event("10:00", "12:00", "Deep work")], {
      tz: "Europe/Berlin",
      ooo: [{ scheduledAt: at("09:30"), start: at("10:30"), end: at("11:30") }],
    });
    const keyword = userWith([
      event("10:00", "12:00"),
      event("10:30", "11:00", "OOO - school run"),
    ]);
    // Act
    const before = expectedStatusAt(user, at("09:00"));
    const known = expectedStatusAt(user, at("10:10"));
    const away = expectedStatusAt(user, at("10:45"));
    const keywordAway = expectedStatusAt(keyword, at("10:40"));
    // Assess
    expect(before).toEqual(none);
    expect(known).toEqual({ ...focus, expiration: s("10:30") });
    expect(away).toEqual({
      text: "Out of office until 12:30",
      emoji: ":palm_tree:",
      expiration: s("11:30"),
    });
    expect(keywordAway).toEqual({
      text: "Out of office until 11:00",
      emoji: ":palm_tree:",
      expiration: s("11:00"),
    });
  });

  it("words an absence that ends on another day with the day and time", () => {
    // Act: 23:30 to 00:30 in Tokyo.
    const text = outOfOfficeWording(at("14:30"), at("15:30"), "Asia/Tokyo");
    // Assess
    expect(text).toBe("Out of office until Tue, 10 Mar 00:30");
  });

  it("follows the calendar in force: an edit applies from its instant on", () => {
    // Prepare
    const first = event("10:00", "11:00");
    const user = userWith([first], {
      edits: [
        {
          at: at("10:20"),
          kind: "cancel_showing",
          uid: first.uid,
          events: [{ ...first, cancelled: true, sequence: 1 }],
        },
      ],
    });
    // Act
    const statuses = [expectedStatusAt(user, at("10:10")), expectedStatusAt(user, at("10:30"))];
    // Assess
    expect(statuses).toEqual([{ ...meeting, expiration: s("11:00") }, none]);
  });
});
