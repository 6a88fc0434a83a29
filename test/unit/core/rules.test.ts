import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classify, DEFAULT_RULES, outOfOfficeText, userRulesSchema } from "#lib/core/rules";
import { codePointLength, truncateText } from "#lib/core/text";
import type { Occurrence } from "#lib/core/types";

const meeting = (over: Partial<Occurrence> = {}): Occurrence => ({
  uid: "u1",
  start: Date.UTC(2024, 2, 12, 9),
  end: Date.UTC(2024, 2, 12, 10),
  allDay: false,
  summary: "1:1 with Bo",
  attendeeCount: 2,
  ...over,
});

describe("classify", () => {
  it("shows the generic meeting text, not the title, by default", () => {
    expect(classify(meeting(), DEFAULT_RULES)).toEqual({
      kind: "meeting",
      text: "In a meeting",
      emoji: ":spiral_calendar_pad:",
      priority: 10,
      dnd: false,
      rule: "meeting",
    });
  });

  it.each([
    [{ status: "CANCELLED" }, "cancelled"],
    [{ transp: "TRANSPARENT" }, "transparent (shown as free)"],
    [{ partstat: "DECLINED" }, "declined by the user"],
    [{ partstat: "TENTATIVE" }, "tentative"],
    [{ allDay: true }, "all-day event that is not out of office"],
  ] as Array<[Partial<Occurrence>, string]>)("skips %o with reason %s", (over, reason) => {
    expect(classify(meeting(over), DEFAULT_RULES)).toEqual({ skip: reason });
  });

  it("keeps tentative events when the user turns skipTentative off", () => {
    const rules = userRulesSchema.parse({ skipTentative: false });
    expect(classify(meeting({ partstat: "TENTATIVE" }), rules)).toMatchObject({ kind: "meeting" });
  });

  it("treats an OOF busy status as out of office even when all-day and transparent", () => {
    const o = meeting({ allDay: true, transp: "TRANSPARENT", busyStatus: "OOF", summary: "Away" });
    expect(classify(o, DEFAULT_RULES)).toMatchObject({ kind: "ooo", emoji: ":palm_tree:" });
  });

  it("ranks out-of-office keywords above focus keywords", () => {
    expect(classify(meeting({ summary: "OOO - focus on moving" }), DEFAULT_RULES)).toMatchObject({
      kind: "ooo",
    });
    expect(classify(meeting({ summary: "Focus time" }), DEFAULT_RULES)).toMatchObject({
      kind: "focus",
      emoji: ":headphones:",
    });
    expect(classify(meeting({ summary: "foooo" }), DEFAULT_RULES)).toMatchObject({
      kind: "meeting",
    });
  });

  it("shows titles only when opted in, and never for private or confidential events", () => {
    const rules = userRulesSchema.parse({ showTitles: true });
    expect(classify(meeting(), rules)).toMatchObject({ text: "1:1 with Bo" });
    expect(classify(meeting({ class: "PRIVATE" }), rules)).toMatchObject({ text: "In a meeting" });
    expect(classify(meeting({ class: "CONFIDENTIAL" }), rules)).toMatchObject({
      text: "In a meeting",
    });
  });

  it("uses per-user keywords and texts merged over the defaults", () => {
    const rules = userRulesSchema.parse({
      focus: { keywords: ["heads down"], text: "Heads down" },
    });
    expect(classify(meeting({ summary: "Heads down: report" }), rules)).toEqual({
      kind: "focus",
      text: "Heads down",
      emoji: ":headphones:",
      priority: 20,
      dnd: false,
      rule: "focus time: keyword heads down",
    });
    expect(rules.ooo).toEqual(DEFAULT_RULES.ooo);
  });

  it("treats absent rules as all defaults", () => {
    expect(userRulesSchema.parse(undefined)).toEqual(DEFAULT_RULES);
    expect(userRulesSchema.parse(null)).toEqual(DEFAULT_RULES);
  });

  it("rejects an emoji that is not in colon form with a precise message", () => {
    const result = userRulesSchema.safeParse({ ooo: { emoji: "🌴" } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["ooo", "emoji"]);
  });
});

describe("userRulesSchema refuses a half status", () => {
  it.each(["ooo", "focus", "meeting"] as const)("rejects an empty or blank %s text", (kind) => {
    // Act
    const empty = userRulesSchema.safeParse({ [kind]: { text: "" } });
    const blank = userRulesSchema.safeParse({ [kind]: { text: "   " } });
    // Assess
    expect(empty.success).toBe(false);
    expect(empty.error?.issues[0]?.path).toEqual([kind, "text"]);
    expect(empty.error?.issues[0]?.message).toMatch(/must not be empty/);
    expect(blank.success).toBe(false);
  });

  it.each(["", "::", "palm_tree", ":Palm Tree:"])("rejects the emoji %j", (emoji) => {
    // Act
    const result = userRulesSchema.safeParse({ meeting: { emoji } });
    // Assess
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(["meeting", "emoji"]);
  });

  it("never yields a kind with empty text or emoji, whatever it accepts", () => {
    const kindInput = fc.record(
      { text: fc.string({ maxLength: 5 }), emoji: fc.string({ maxLength: 5 }) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.record({ ooo: kindInput, focus: kindInput, meeting: kindInput }), (input) => {
        const result = userRulesSchema.safeParse(input);
        if (!result.success) return;
        for (const kind of ["ooo", "focus", "meeting"] as const) {
          expect(result.data[kind].text.trim()).not.toBe("");
          expect(result.data[kind].emoji).toMatch(/^:[a-z0-9_+'-]+:$/);
        }
      }),
    );
  });

  it("trims the text it keeps", () => {
    expect(userRulesSchema.parse({ focus: { text: "  Heads down " } }).focus.text).toBe(
      "Heads down",
    );
  });
});

describe("outOfOfficeText", () => {
  it("names the last day out in the user's zone", () => {
    // Prepare: an all-day leave ending Sat 28 Nov 00:00 in Berlin (= Fri 23:00Z)
    const end = Date.UTC(2020, 10, 27, 23);
    // Act / Assess
    expect(outOfOfficeText("Out of office", end, "Europe/Berlin")).toBe(
      "Out of office until Fri, 27 Nov",
    );
    // In New York the same instant is Fri 18:00, not a day boundary, so the time shows.
    expect(outOfOfficeText("Out of office", end, "America/New_York")).toBe(
      "Out of office until Fri, 27 Nov 18:00",
    );
    expect(outOfOfficeText("Abwesend", end, "Europe/Berlin", "de-DE")).toBe(
      "Abwesend until Fr., 27. Nov.",
    );
  });

  it("shows only the time when it ends later on the day it is shown", () => {
    // Prepare: shown Mon 10 Mar 09:00 Berlin, ending 15:30 Berlin the same day
    const now = Date.UTC(2025, 2, 10, 8);
    const end = Date.UTC(2025, 2, 10, 14, 30);
    // Act / Assess
    expect(outOfOfficeText("Out of office", end, "Europe/Berlin", undefined, now)).toBe(
      "Out of office until 15:30",
    );
  });

  it("shows the day and time when it ends off midnight on another day", () => {
    // Prepare: shown Fri 7 Mar, ending Mon 10 Mar 15:30 Berlin
    const now = Date.UTC(2025, 2, 7, 8);
    const end = Date.UTC(2025, 2, 10, 14, 30);
    // Act / Assess
    expect(outOfOfficeText("Out of office", end, "Europe/Berlin", undefined, now)).toBe(
      "Out of office until Mon, 10 Mar 15:30",
    );
    expect(outOfOfficeText("Out of office", end, "Europe/Berlin")).toBe(
      "Out of office until Mon, 10 Mar 15:30",
    );
  });

  it("decides 'the same day' in the user's zone, not in UTC", () => {
    // Prepare: 23:30Z on 9 Mar is already 10 Mar in Berlin; the end is 10 Mar 15:30 Berlin
    const now = Date.UTC(2025, 2, 9, 23, 30);
    const end = Date.UTC(2025, 2, 10, 14, 30);
    // Act / Assess
    expect(outOfOfficeText("OOO", end, "Europe/Berlin", undefined, now)).toBe("OOO until 15:30");
    expect(outOfOfficeText("OOO", end, "UTC", undefined, now)).toBe("OOO until Mon, 10 Mar 14:30");
  });

  it("names the last day out for a whole-day absence even when shown that day", () => {
    // Prepare: ends Tue 11 Mar 00:00 Berlin, shown Mon 10 Mar 09:00
    const end = Date.UTC(2025, 2, 10, 23);
    const now = Date.UTC(2025, 2, 10, 8);
    // Act / Assess
    expect(outOfOfficeText("Out of office", end, "Europe/Berlin", undefined, now)).toBe(
      "Out of office until Mon, 10 Mar",
    );
  });

  it("reads an unknown zone as UTC rather than failing", () => {
    const end = Date.UTC(2025, 2, 10, 14, 30);
    expect(outOfOfficeText("Away", end, "Mars/Olympus")).toBe("Away until Mon, 10 Mar 14:30");
  });
});

describe("truncateText", () => {
  it("never exceeds 100 code points and never splits a grapheme", () => {
    const pieces = fc.constantFrom("a", "é", "👍", "👨‍👩‍👧‍👦", "🇩🇪", "𝒜", " ", "e\u0301");
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 200 }), (parts) => {
        const text = parts.join("");
        const out = truncateText(text);
        expect(codePointLength(out)).toBeLessThanOrEqual(100);
        if (out === text) return;
        const kept = out.slice(0, -1);
        expect(text.startsWith(kept.trimEnd())).toBe(true);
        const graphemes = [
          ...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text),
        ].map((s) => s.segment);
        let joined = "";
        const boundaries = new Set([0]);
        for (const g of graphemes) {
          joined += g;
          boundaries.add(joined.length);
        }
        expect(boundaries.has(kept.length)).toBe(true);
      }),
    );
  });

  it("cuts before a family emoji rather than inside it", () => {
    const text = `${"x".repeat(95)}👨‍👩‍👧‍👦`;
    expect(truncateText(text)).toBe(`${"x".repeat(95)}…`);
  });
});
