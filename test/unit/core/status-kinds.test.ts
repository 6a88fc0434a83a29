import { describe, expect, it } from "vitest";
import {
  classify,
  DEFAULT_RULES,
  defaultRulesFor,
  userRulesSchema,
  userRulesSchemaFor,
} from "#lib/core/rules";
import {
  rankKinds,
  STATUS_KINDS,
  type StatusKind,
  type StatusKindEntry,
  type StatusKindTable,
  StatusKindTableError,
} from "#lib/core/status-kinds";
import { buildTimeline, resolveSegments } from "#lib/core/timeline";
import type { Occurrence } from "#lib/core/types";

const H = 3_600_000;
const T0 = Date.UTC(2024, 2, 12, 0);
const occ = (summary: string, start: number, end: number, over: Partial<Occurrence> = {}) => ({
  uid: summary,
  start: T0 + start * H,
  end: T0 + end * H,
  allDay: false,
  summary,
  attendeeCount: 1,
  ...over,
});
const window = { tz: "UTC", from: T0, to: T0 + 24 * H };

describe("the default status kinds", () => {
  it("are the defaults docs/rules.md gives: texts, emoji, keywords and shared settings", () => {
    expect(DEFAULT_RULES).toEqual({
      ooo: {
        text: "Out of office",
        emoji: ":palm_tree:",
        keywords: ["out of office", "ooo", "vacation", "pto", "annual leave", "on leave"],
        dnd: false,
      },
      focus: {
        text: "Focus time",
        emoji: ":headphones:",
        keywords: ["focus", "focus time", "deep work", "no meetings"],
        dnd: false,
      },
      meeting: { text: "In a meeting", emoji: ":spiral_calendar_pad:", keywords: [], dnd: false },
      skipTentative: true,
      showTitles: false,
      bridgeGapMinutes: 0,
      custom: [],
      skipNoGuests: false,
      skipCalendars: [],
      standing: "keep",
    });
    expect(userRulesSchema.parse(undefined)).toEqual(DEFAULT_RULES);
  });

  it("rank out-of-office over focus over meeting", () => {
    expect(rankKinds(STATUS_KINDS).entries.map((e) => e.kind)).toEqual(["ooo", "focus", "meeting"]);
    // Three overlapping stretches: each higher kind covers part of the lower one.
    const blocks = resolveSegments<StatusKind>([
      { start: T0, end: T0 + 4 * H, kind: "meeting", text: "m", emoji: ":m:" },
      { start: T0 + H, end: T0 + 3 * H, kind: "focus", text: "f", emoji: ":f:" },
      { start: T0 + 2 * H, end: T0 + 3 * H, kind: "ooo", text: "o", emoji: ":o:" },
    ]);
    expect(blocks.map((b) => [b.kind, (b.start - T0) / H, (b.end - T0) / H])).toEqual([
      ["meeting", 0, 1],
      ["focus", 1, 2],
      ["ooo", 2, 3],
      ["meeting", 3, 4],
    ]);
  });

  it("give a title with several kinds' keywords the highest kind", () => {
    expect(classify(occ("Focus block, then OOO", 9, 10), DEFAULT_RULES)).toMatchObject({
      kind: "ooo",
    });
    expect(classify(occ("Deep work", 9, 10), DEFAULT_RULES)).toMatchObject({ kind: "focus" });
    expect(classify(occ("Standup", 9, 10), DEFAULT_RULES)).toMatchObject({ kind: "meeting" });
  });

  it("know no other kind in the rules", () => {
    expect(userRulesSchema.safeParse({ commuting: { text: "On the train" } }).success).toBe(false);
  });
});

// A new kind is this one entry, appended to the table: nothing else changes.
const COMMUTING = {
  kind: "commuting",
  label: "commuting",
  priority: 15,
  defaults: { text: "Commuting", emoji: ":train:" },
  match: { keywords: ["commute", "commuting"], allDay: false },
} as const satisfies StatusKindEntry;
const WITH_COMMUTING: StatusKindTable<StatusKind | "commuting"> = [...STATUS_KINDS, COMMUTING];

describe("a kind added as one table entry", () => {
  const schema = userRulesSchemaFor(WITH_COMMUTING);

  it("gets a rules member with its defaults, which the user may override and is validated", () => {
    const rules = schema.parse(undefined);
    expect(rules.commuting).toEqual({
      text: "Commuting",
      emoji: ":train:",
      keywords: ["commute", "commuting"],
      dnd: false,
    });
    expect(rules.meeting.text).toBe("In a meeting");
    expect(schema.parse({ commuting: { text: "On the train" } }).commuting).toEqual({
      text: "On the train",
      emoji: ":train:",
      keywords: ["commute", "commuting"],
      dnd: false,
    });
    const bad = schema.safeParse({ commuting: { emoji: "train" } });
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(["commuting", "emoji"]);
  });

  it("turns a matching occurrence into a block of its kind with its text and emoji", () => {
    const rules = defaultRulesFor(WITH_COMMUTING);
    const timeline = buildTimeline([occ("Commute to the office", 8, 9)], {
      ...window,
      rules,
      kinds: WITH_COMMUTING,
    });
    expect(timeline).toEqual([
      {
        start: T0 + 8 * H,
        end: T0 + 9 * H,
        kind: "commuting",
        text: "Commuting",
        emoji: ":train:",
        expiration: (T0 + 9 * H) / 1000,
      },
    ]);
  });

  it("ranks by its priority: above meetings, below focus", () => {
    const rules = defaultRulesFor(WITH_COMMUTING);
    const timeline = buildTimeline(
      [
        occ("Commute home", 17, 19),
        occ("Late call", 16, 18),
        occ("Deep work on the train", 18.5, 20),
      ],
      { ...window, rules, kinds: WITH_COMMUTING },
    );
    expect(timeline.map((b) => [b.kind, b.text, (b.start - T0) / H, (b.end - T0) / H])).toEqual([
      ["meeting", "In a meeting", 16, 17],
      ["commuting", "Commuting", 17, 18.5],
      ["focus", "Focus time", 18.5, 20],
    ]);
  });

  it("follows its match: all-day events do not show it unless the entry says so", () => {
    const rules = defaultRulesFor(WITH_COMMUTING);
    const allDay = occ("Commuting week", 0, 24, { allDay: true });
    expect(classify(allDay, rules, WITH_COMMUTING)).toEqual({
      skip: "all-day event that is not out of office",
    });
    const allDayCommuting = [
      ...STATUS_KINDS,
      { ...COMMUTING, match: { ...COMMUTING.match, allDay: true } },
    ];
    expect(classify(allDay, rules, allDayCommuting)).toMatchObject({ kind: "commuting" });
    expect(classify(occ("Holiday", 0, 24, { allDay: true }), rules, allDayCommuting)).toEqual({
      skip: "all-day event that is not out of office or commuting",
    });
  });
});

describe("an added absence kind", () => {
  // Above out-of-office, shown on all-day events, and saying when it ends, as out-of-office does.
  const SICK = {
    kind: "sick",
    label: "off sick",
    priority: 40,
    defaults: { text: "Off sick", emoji: ":face_with_thermometer:" },
    match: { keywords: ["sick"], allDay: true },
    showsUntil: true,
  } as const satisfies StatusKindEntry;
  const WITH_SICK: StatusKindTable<StatusKind | "sick"> = [...STATUS_KINDS, SICK];

  it("gets the until text and outranks out-of-office", () => {
    const rules = defaultRulesFor(WITH_SICK);
    // The sick days are Tue 12 and Wed 13 March 2024 (the end is exclusive).
    const timeline = buildTimeline(
      [occ("Sick", 0, 48, { allDay: true }), occ("Vacation", 24, 72, { allDay: true })],
      { tz: "UTC", from: T0, to: T0 + 72 * H, rules, kinds: WITH_SICK },
    );
    expect(timeline.map((b) => [b.kind, b.text, (b.start - T0) / H, (b.end - T0) / H])).toEqual([
      ["sick", "Off sick until Wed, 13 Mar", 0, 48],
      ["ooo", "Out of office until Thu, 14 Mar", 48, 72],
    ]);
  });
});

describe("a table of kinds", () => {
  const entry = (kind: string, priority: number, fallback = false): StatusKindEntry => ({
    kind,
    label: kind,
    priority,
    defaults: { text: kind, emoji: `:${kind}:` },
    match: { keywords: [kind], allDay: false, fallback },
  });

  it.each([
    ["two kinds of one name", [entry("a", 2), entry("a", 1, true)]],
    ["two kinds of one priority", [entry("a", 1), entry("b", 1, true)]],
    ["no fallback kind", [entry("a", 2), entry("b", 1)]],
    ["two fallback kinds", [entry("a", 2, true), entry("b", 1, true)]],
  ])("is refused with %s", (_name, table) => {
    expect(() => rankKinds(table)).toThrow(StatusKindTableError);
  });
});
