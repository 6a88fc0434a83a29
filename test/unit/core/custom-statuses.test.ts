import { describe, expect, it } from "vitest";
import { explainDay } from "#lib/core/explain";
import { classify, userRulesSchema } from "#lib/core/rules";
import { buildTimeline, resolveSegments } from "#lib/core/timeline";
import type { Occurrence } from "#lib/core/types";

// How an event is classified under a person's own statuses, skips and Do Not Disturb, and how
// the blocks they make rank against the built-in kinds (ooo 30, focus 20, meeting 10).

const H = 3_600_000;
const T0 = Date.UTC(2026, 2, 10); // a Tuesday
const occ = (summary: string, start: number, end: number, over: Partial<Occurrence> = {}) => ({
  uid: `${summary}@${start}`,
  start: T0 + start * H,
  end: T0 + end * H,
  allDay: false,
  summary,
  attendeeCount: 2,
  guests: 1,
  ...over,
});
const status = { text: "At lunch", emoji: ":fork_and_knife:" };
const rulesWith = (rules: Record<string, unknown>) => userRulesSchema.parse(rules);
const shown = (o: Occurrence, rules: Record<string, unknown>) => {
  const c = classify(o, rulesWith(rules));
  return "skip" in c ? `skip: ${c.skip}` : `${c.kind}${c.name ? ` ${c.name}` : ""} ${c.priority}`;
};

describe("a custom status", () => {
  const lunch = { name: "Lunch", ...status, priority: 15, keywords: ["lunch"] };

  it("matches on a whole word of the title, any case, and shows its text and emoji", () => {
    const c = classify(occ("Team LUNCH", 12, 13), rulesWith({ custom: [lunch] }));
    expect(c).toEqual({
      kind: "custom",
      name: "Lunch",
      ...status,
      priority: 15,
      dnd: false,
      rule: "Lunch: keyword lunch",
    });
    expect(shown(occ("Lunchtime talk", 12, 13), { custom: [lunch] })).toBe("meeting 10");
  });

  it("needs every condition given: keyword, calendar and video call", () => {
    const call = {
      name: "Interview",
      ...status,
      priority: 25,
      keywords: ["interview"],
      calendars: ["cal2"],
      online: true,
    };
    const rules = { custom: [call] };
    const on = { sourceId: "cal2", online: true };
    expect(shown(occ("Interview: Ada", 9, 10, on), rules)).toBe("custom Interview 25");
    expect(shown(occ("Interview: Ada", 9, 10, { ...on, sourceId: "cal1" }), rules)).toBe(
      "meeting 10",
    );
    expect(shown(occ("Interview: Ada", 9, 10, { sourceId: "cal2" }), rules)).toBe("meeting 10");
    expect(shown(occ("Standup", 9, 10, on), rules)).toBe("meeting 10");
    const c = classify(occ("Interview: Ada", 9, 10, on), rulesWith(rules));
    expect(c).toMatchObject({ rule: "Interview: keyword interview, calendar cal2, video call" });
  });

  it("reads online: false as 'without a video call', and no condition as every event", () => {
    const inPerson = { name: "In the office", ...status, priority: 12, online: false };
    expect(shown(occ("Sync", 9, 10), { custom: [inPerson] })).toBe("custom In the office 12");
    expect(shown(occ("Sync", 9, 10, { online: true }), { custom: [inPerson] })).toBe("meeting 10");
    const every = { name: "Busy", ...status, priority: 11 };
    expect(classify(occ("Sync", 9, 10), rulesWith({ custom: [every] }))).toMatchObject({
      rule: "Busy: every event",
    });
  });

  it("matches an all-day event only by a keyword", () => {
    const conference = { name: "Conference", ...status, priority: 25, keywords: ["conference"] };
    const calendarWide = { name: "Work", ...status, priority: 25, calendars: ["cal1"] };
    const day = (summary: string) => occ(summary, 0, 24, { allDay: true, sourceId: "cal1" });
    expect(shown(day("KubeConference"), { custom: [conference] })).toBe(
      "skip: all-day event that is not out of office",
    );
    expect(shown(day("Tech conference"), { custom: [conference] })).toBe("custom Conference 25");
    expect(shown(day("Birthday"), { custom: [calendarWide] })).toBe(
      "skip: all-day event that is not out of office",
    );
  });

  it("competes with the built-in kinds by priority; the highest wins, the person's on a tie", () => {
    const at = (priority: number) => ({ custom: [{ ...lunch, priority, keywords: ["focus"] }] });
    expect(shown(occ("Focus", 9, 10), at(21))).toBe("custom Lunch 21");
    expect(shown(occ("Focus", 9, 10), at(19))).toBe("focus 20");
    expect(shown(occ("Focus", 9, 10), at(20))).toBe("custom Lunch 20");
    // The meeting kind is only what nothing else matched: a low custom status still shows.
    expect(shown(occ("Lunch", 12, 13), { custom: [{ ...lunch, priority: 1 }] })).toBe(
      "custom Lunch 1",
    );
    // A native out-of-office outranks a lower custom status, a higher one outranks it.
    const away = occ("Lunch", 12, 13, { busyStatus: "OOF" });
    expect(shown(away, { custom: [lunch] })).toBe("ooo 30");
    expect(shown(away, { custom: [{ ...lunch, priority: 31 }] })).toBe("custom Lunch 31");
  });

  it("among custom statuses of one priority, the first listed wins", () => {
    const second = { ...lunch, name: "Food", text: "Eating" };
    const c = classify(occ("Lunch", 12, 13), rulesWith({ custom: [lunch, second] }));
    expect(c).toMatchObject({ name: "Lunch" });
  });
});

describe("skips and Do Not Disturb", () => {
  it("skipCalendars: no event of those calendars sets a status, whatever it is", () => {
    const rules = { skipCalendars: ["family"] };
    const c = classify(
      occ("OOO", 9, 10, { sourceId: "family", busyStatus: "OOF" }),
      rulesWith(rules),
    );
    expect(c).toEqual({ skip: "calendar family", calendar: "family" });
    expect(shown(occ("Standup", 9, 10, { sourceId: "work" }), rules)).toBe("meeting 10");
  });

  it("skipNoGuests: a meeting with nobody else sets none; focus, ooo and custom still show", () => {
    const rules = {
      skipNoGuests: true,
      custom: [{ name: "Lunch", ...status, priority: 15, keywords: ["lunch"] }],
      meeting: { keywords: ["call"] },
    };
    const alone = { guests: 0, attendeeCount: 0 };
    expect(shown(occ("Dentist", 9, 10, alone), rules)).toBe("skip: no guests");
    expect(shown(occ("Call the bank", 9, 10, alone), rules)).toBe("skip: no guests");
    expect(shown(occ("Dentist", 9, 10, { guests: 1 }), rules)).toBe("meeting 10");
    expect(shown(occ("Focus", 9, 10, alone), rules)).toBe("focus 20");
    expect(shown(occ("Vacation", 9, 10, alone), rules)).toBe("ooo 30");
    expect(shown(occ("Lunch", 9, 10, alone), rules)).toBe("custom Lunch 15");
    expect(shown(occ("Dentist", 9, 10, alone), { ...rules, skipNoGuests: false })).toBe(
      "meeting 10",
    );
    // Occurrences made before guests were counted: everyone but one attendee.
    expect(shown(occ("Dentist", 9, 10, { guests: undefined, attendeeCount: 1 }), rules)).toBe(
      "skip: no guests",
    );
    expect(shown(occ("1:1", 9, 10, { guests: undefined, attendeeCount: 2 }), rules)).toBe(
      "meeting 10",
    );
  });

  it("carries dnd from the kind or custom status that chose the event", () => {
    const rules = rulesWith({
      focus: { dnd: true },
      custom: [{ name: "Deep", ...status, priority: 25, keywords: ["deep"], dnd: true }],
    });
    expect(classify(occ("Focus", 9, 10), rules)).toMatchObject({ kind: "focus", dnd: true });
    expect(classify(occ("Deep dive", 9, 10), rules)).toMatchObject({ name: "Deep", dnd: true });
    expect(classify(occ("Standup", 9, 10), rules)).toMatchObject({ kind: "meeting", dnd: false });
  });
});

describe("blocks of custom statuses", () => {
  const rules = rulesWith({
    custom: [
      { name: "Lunch", ...status, priority: 15, keywords: ["lunch"] },
      { name: "Call", text: "On a call", emoji: ":phone:", priority: 25, online: true, dnd: true },
    ],
  });
  const window = { tz: "UTC", from: T0, to: T0 + 24 * H, rules };

  it("carry their priority, name and dnd; built-in blocks stay as they were stored", () => {
    const blocks = buildTimeline(
      [occ("Lunch", 12, 13), occ("Review", 13, 14, { online: true }), occ("Standup", 14, 15)],
      window,
    );
    expect(blocks).toEqual([
      {
        start: T0 + 12 * H,
        end: T0 + 13 * H,
        kind: "custom",
        name: "Lunch",
        priority: 15,
        ...status,
        expiration: (T0 + 13 * H) / 1000,
      },
      {
        start: T0 + 13 * H,
        end: T0 + 14 * H,
        kind: "custom",
        name: "Call",
        priority: 25,
        text: "On a call",
        emoji: ":phone:",
        dnd: true,
        expiration: (T0 + 14 * H) / 1000,
      },
      {
        start: T0 + 14 * H,
        end: T0 + 15 * H,
        kind: "meeting",
        text: "In a meeting",
        emoji: ":spiral_calendar_pad:",
        expiration: (T0 + 15 * H) / 1000,
      },
    ]);
  });

  it("rank against stored blocks without a priority by their kind's number", () => {
    const blocks = resolveSegments([
      { start: T0 + 9 * H, end: T0 + 12 * H, kind: "focus", text: "Focus", emoji: ":f:" },
      {
        start: T0 + 10 * H,
        end: T0 + 11 * H,
        kind: "custom",
        name: "Low",
        priority: 19,
        text: "Low",
        emoji: ":l:",
      },
      {
        start: T0 + 11 * H,
        end: T0 + 13 * H,
        kind: "custom",
        name: "High",
        priority: 21,
        text: "High",
        emoji: ":h:",
      },
    ]);
    expect(blocks.map((b) => [b.text, (b.start - T0) / H, (b.end - T0) / H])).toEqual([
      ["Focus", 9, 11],
      ["High", 11, 13],
    ]);
  });

  it("merge with an equal status into one call, but not across Do Not Disturb", () => {
    const same = { text: "Busy", emoji: ":b:" };
    const merged = resolveSegments([
      { start: T0, end: T0 + H, kind: "meeting", ...same },
      { start: T0 + H, end: T0 + 2 * H, kind: "custom", name: "Busy", priority: 15, ...same },
    ]);
    expect(merged).toHaveLength(1);
    expect(merged[0]).toMatchObject({ kind: "custom", name: "Busy", priority: 15 });
    const split = resolveSegments([
      { start: T0, end: T0 + H, kind: "meeting", ...same },
      { start: T0 + H, end: T0 + 2 * H, kind: "meeting", ...same, dnd: true },
    ]);
    expect(split).toHaveLength(2);
  });

  it("keep a source's pieces of different priority apart, so other sources rank against each", () => {
    const same = { text: "Busy", emoji: ":b:" };
    const stored = resolveSegments(
      [
        { start: T0, end: T0 + H, kind: "custom", name: "A", priority: 50, ...same },
        { start: T0 + H, end: T0 + 2 * H, kind: "custom", name: "B", priority: 15, ...same },
      ],
      { keepRanks: true },
    );
    expect(stored).toHaveLength(2);
    const merged = resolveSegments([
      ...stored,
      { start: T0 + H, end: T0 + 2 * H, kind: "focus", text: "Focus", emoji: ":f:" },
    ]);
    expect(merged.map((b) => b.text)).toEqual(["Busy", "Focus"]);
  });
});

describe("a custom status as high as out of office", () => {
  it("keeps the until text on the out-of-office time only, though both show alike", () => {
    const rules = rulesWith({
      ooo: { text: "Away", emoji: ":x:" },
      custom: [{ name: "Trip", text: "Away", emoji: ":x:", priority: 30, keywords: ["trip"] }],
    });
    const blocks = buildTimeline([occ("Vacation", 9, 12), occ("Trip", 12, 15)], {
      rules,
      tz: "UTC",
      from: T0,
      to: T0 + 24 * H,
    });
    expect(blocks.map((b) => [b.kind, b.text])).toEqual([
      ["ooo", "Away until 12:00"],
      ["custom", "Away"],
    ]);
  });
});

describe("explainDay", () => {
  it("says for each event what it shows and which rule chose it, or why it shows nothing", () => {
    const rules = rulesWith({
      custom: [{ name: "Lunch", ...status, priority: 15, keywords: ["lunch"] }],
      skipNoGuests: true,
      skipCalendars: ["family"],
    });
    const lines = explainDay(
      [
        occ("Standup", 9, 9.25),
        occ("Lunch with Bo", 12, 13, { guests: 0 }),
        occ("Dentist", 15, 16, { guests: 0 }),
        occ("Vacation", 0, 24, { allDay: true }),
        occ("Birthday", 17, 18, { sourceId: "family" }),
        occ("Tomorrow", 30, 31),
      ],
      rules,
      "UTC",
      T0,
      T0 + 24 * H,
    );
    expect(lines.map((l) => [l.title, l.status?.text ?? "-", l.rule])).toEqual([
      ["Vacation", "Out of office until Tue, 10 Mar", "out of office: keyword vacation"],
      ["Standup", "In a meeting", "meeting"],
      ["Lunch with Bo", "At lunch", "Lunch: keyword lunch"],
      ["Dentist", "-", "skipped: no guests"],
      ["Birthday", "-", "skipped: calendar family"],
    ]);
    expect(lines[4]).toMatchObject({ skippedCalendar: "family", sourceId: "family" });
    expect(lines[2]?.status).toEqual({
      kind: "custom",
      name: "Lunch",
      ...status,
      priority: 15,
      dnd: false,
    });
  });
});
