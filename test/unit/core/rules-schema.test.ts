import { describe, expect, it } from "vitest";
import { DEFAULT_RULES, userRulesSchema, userRulesSchemaKnowing } from "#lib/core/rules";

// The rules members of issue 25 as the schema reads them: what each accepts, its defaults, and
// each limit refused at the field's path with a reason in words.

const lunch = { name: "Lunch", text: "At lunch", emoji: ":fork_and_knife:", priority: 15 };
const hours = { start: "09:00", end: "17:30" };

/** The first problem's path and message, or "ok". */
function problemOf(rules: unknown, calendars?: string[]): { path: string; message: string } | "ok" {
  const schema = calendars === undefined ? userRulesSchema : userRulesSchemaKnowing(calendars);
  const parsed = schema.safeParse(rules);
  if (parsed.success) return "ok";
  const issue = parsed.error.issues[0];
  return { path: `/${(issue?.path ?? []).join("/")}`, message: issue?.message ?? "" };
}

describe("the rules members of a person's own setup", () => {
  it("keep today's shape: the old members parse as before, the new ones take their defaults", () => {
    const rules = userRulesSchema.parse({
      ooo: { text: "Away" },
      focus: { keywords: ["heads down"] },
      meeting: { emoji: ":calendar:" },
      skipTentative: false,
      showTitles: true,
      bridgeGapMinutes: 5,
      locale: "en-US",
    });
    expect(rules.ooo).toEqual({ ...DEFAULT_RULES.ooo, text: "Away" });
    expect(rules.focus.keywords).toEqual(["heads down"]);
    expect(rules).toMatchObject({
      skipTentative: false,
      showTitles: true,
      bridgeGapMinutes: 5,
      locale: "en-US",
      custom: [],
      skipNoGuests: false,
      skipCalendars: [],
      standing: "keep",
    });
    expect(rules.workingHours).toBeUndefined();
  });

  it("reads custom statuses, dnd, skips, working hours and standing with their defaults", () => {
    const rules = userRulesSchemaKnowing(["cal1", "cal2"]).parse({
      custom: [
        { ...lunch, keywords: ["lunch"] },
        { ...lunch, name: "On a call", priority: 12, online: true, calendars: ["cal2"], dnd: true },
      ],
      focus: { dnd: true },
      skipNoGuests: true,
      skipCalendars: ["cal1"],
      workingHours: hours,
      standing: "restore",
    });
    expect(rules.custom).toEqual([
      { ...lunch, keywords: ["lunch"], calendars: [], dnd: false },
      {
        ...lunch,
        name: "On a call",
        priority: 12,
        keywords: [],
        calendars: ["cal2"],
        online: true,
        dnd: true,
      },
    ]);
    expect(rules.focus.dnd).toBe(true);
    expect(rules.meeting.dnd).toBe(false);
    expect(rules.workingHours).toEqual({
      days: ["mon", "tue", "wed", "thu", "fri"],
      start: "09:00",
      end: "17:30",
      text: "Off for the day",
      emoji: ":crescent_moon:",
      dnd: false,
    });
    expect(rules).toMatchObject({
      skipNoGuests: true,
      skipCalendars: ["cal1"],
      standing: "restore",
    });
  });

  it("parse again to themselves, so a page may send back the rules it read", () => {
    const once = userRulesSchema.parse({
      custom: [{ ...lunch, keywords: ["lunch"], online: false }],
      workingHours: { ...hours, days: ["mon", "sat"], dnd: true },
      ooo: { dnd: true },
    });
    expect(userRulesSchema.parse(once)).toEqual(once);
  });

  it.each([
    [
      "21 custom statuses",
      { custom: Array.from({ length: 21 }, (_, i) => ({ ...lunch, name: `S${i}` })) },
      "/custom",
      "at most 20 custom statuses",
    ],
    [
      "an empty name",
      { custom: [{ ...lunch, name: "  " }] },
      "/custom/0/name",
      "name must not be empty",
    ],
    [
      "a name of 41 characters",
      { custom: [{ ...lunch, name: "x".repeat(41) }] },
      "/custom/0/name",
      "name must be at most 40 characters",
    ],
    [
      "a name used twice (any case)",
      { custom: [lunch, { ...lunch, name: "LUNCH" }] },
      "/custom/1/name",
      'name "LUNCH" is taken',
    ],
    [
      "priority 0",
      { custom: [{ ...lunch, priority: 0 }] },
      "/custom/0/priority",
      "priority must be a whole number from 1 to 99",
    ],
    [
      "priority 100",
      { custom: [{ ...lunch, priority: 100 }] },
      "/custom/0/priority",
      "from 1 to 99",
    ],
    [
      "priority 1.5",
      { custom: [{ ...lunch, priority: 1.5 }] },
      "/custom/0/priority",
      "from 1 to 99",
    ],
    [
      "priority as text",
      { custom: [{ ...lunch, priority: "5" }] },
      "/custom/0/priority",
      "from 1 to 99",
    ],
    [
      "no priority",
      { custom: [{ name: "Lunch", text: "At lunch", emoji: ":fork_and_knife:" }] },
      "/custom/0/priority",
      "from 1 to 99",
    ],
    [
      "an empty text",
      { custom: [{ ...lunch, text: " " }] },
      "/custom/0/text",
      "text must not be empty",
    ],
    [
      "an emoji not in colon form",
      { custom: [{ ...lunch, emoji: "🍴" }] },
      "/custom/0/emoji",
      "colon form",
    ],
    [
      "an empty keyword",
      { custom: [{ ...lunch, keywords: ["lunch", " "] }] },
      "/custom/0/keywords/1",
      "a keyword must not be empty",
    ],
    [
      "online as text",
      { custom: [{ ...lunch, online: "yes" }] },
      "/custom/0/online",
      "online must be true or false",
    ],
    ["an unknown member", { custom: [{ ...lunch, colour: "red" }] }, "/custom/0", ""],
    ["dnd as text", { focus: { dnd: "on" } }, "/focus/dnd", "dnd must be true or false"],
    [
      "skipNoGuests as text",
      { skipNoGuests: "yes" },
      "/skipNoGuests",
      "skipNoGuests must be true or false",
    ],
    [
      "a source id with a slash",
      { skipCalendars: ["a/b"] },
      "/skipCalendars/0",
      "must not contain",
    ],
    [
      "a start without its minutes",
      { workingHours: { ...hours, start: "9" } },
      "/workingHours/start",
      "HH:MM",
    ],
    ["an end at 24:00", { workingHours: { ...hours, end: "24:00" } }, "/workingHours/end", "HH:MM"],
    [
      "a start equal to the end",
      { workingHours: { ...hours, end: "09:00" } },
      "/workingHours/end",
      "end must differ from start",
    ],
    [
      "no working day",
      { workingHours: { ...hours, days: [] } },
      "/workingHours/days",
      "at least one working day",
    ],
    [
      "a day named twice",
      { workingHours: { ...hours, days: ["mon", "mon"] } },
      "/workingHours/days",
      "a day is named twice",
    ],
    [
      "a day spelled out",
      { workingHours: { ...hours, days: ["monday"] } },
      "/workingHours/days/0",
      "days are mon, tue",
    ],
    [
      "working hours without an end",
      { workingHours: { start: "09:00" } },
      "/workingHours/end",
      "HH:MM",
    ],
    [
      "standing other than keep or restore",
      { standing: "always" },
      "/standing",
      'standing must be "keep" or "restore"',
    ],
  ])("refuse %s at its path, in words", (_what, rules, path, words) => {
    const problem = problemOf(rules);
    expect(problem).not.toBe("ok");
    expect(problem).toMatchObject({ path });
    expect((problem as { message: string }).message).toContain(words);
  });

  it("refuse a calendar the person does not have, naming the ones they do", () => {
    expect(problemOf({ skipCalendars: ["cal1", "cal3"] }, ["cal1", "cal2"])).toEqual({
      path: "/skipCalendars/1",
      message: 'no calendar "cal3"; this person\'s calendars are: cal1, cal2',
    });
    expect(
      problemOf({ custom: [lunch, { ...lunch, name: "Other", calendars: ["work"] }] }, ["cal1"]),
    ).toMatchObject({ path: "/custom/1/calendars/0" });
    expect(problemOf({ skipCalendars: ["cal1"] }, [])).toMatchObject({
      message: expect.stringContaining("calendars are: none"),
    });
    // Stored rules are read without the calendars: one removed since only matches nothing.
    expect(problemOf({ skipCalendars: ["cal3"] })).toBe("ok");
  });

  it("accept the limits themselves: 20 statuses, 40-character names, priorities 1 and 99", () => {
    const twenty = Array.from({ length: 20 }, (_, i) => ({
      ...lunch,
      name: `${"n".repeat(38)}${String(i).padStart(2, "0")}`,
      priority: i === 0 ? 1 : 99,
    }));
    expect(problemOf({ custom: twenty })).toBe("ok");
    expect(problemOf({ workingHours: { ...hours, start: "22:00", end: "06:00" } })).toBe("ok");
  });
});
