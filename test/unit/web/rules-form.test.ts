import { describe, expect, it } from "vitest";
import { DEFAULT_RULES, userRulesSchema } from "#lib/core/rules";
import { rulesFieldOf, rulesFromForm } from "#lib/web/rules-form";

// The rules form read back into rules (lib/web/rules-form.ts): what a browser sends, row by row.
// Expected rules are written out by hand.

const form = (fields: Record<string, string>) => new URLSearchParams(fields);
const CALENDARS = ["cal-a", "cal-b"];

describe("rulesFromForm", () => {
  it("skips a blank row and a deleted one, and passes a priority that is not a number as typed", () => {
    // Prepare: row 0 deleted, row 1 kept with a typo in its priority, row 2 left blank.
    const sent = form({
      custom_0_name: "Old",
      custom_0_text: "Old",
      custom_0_emoji: ":x:",
      custom_0_priority: "5",
      custom_0_delete: "on",
      custom_1_name: " Lunch ",
      custom_1_text: "Lunch",
      custom_1_emoji: " :fork_and_knife: ",
      custom_1_priority: "2O",
      custom_1_keywords: "lunch\r\n\r\n brunch ",
      "custom_1_calendars_cal-b": "on",
      "custom_1_calendars_cal-z": "on",
      custom_1_online: "yes",
      custom_2_name: "",
      custom_2_text: "",
      custom_2_emoji: "",
      custom_2_priority: "15",
      custom_2_keywords: "",
    });
    // Act
    const rules = rulesFromForm(sent, DEFAULT_RULES, CALENDARS);
    // Assess: a calendar the person does not have (cal-z) is not read from the form.
    expect(rules.custom).toEqual([
      {
        name: " Lunch ",
        text: "Lunch",
        emoji: ":fork_and_knife:",
        priority: "2O",
        keywords: ["lunch", "brunch"],
        calendars: ["cal-b"],
        online: true,
        dnd: false,
      },
    ]);
    // The schema refuses it beside the row it came from: row 1, not index 0.
    const parsed = userRulesSchema.safeParse(rules);
    const issue = parsed.error?.issues.find((i) => i.path[0] === "custom");
    expect(issue?.message).toBe("priority must be a whole number from 1 to 99");
    const pointer = `/rules/${issue?.path.join("/")}`;
    expect(rulesFieldOf(pointer, sent, CALENDARS)).toBe("custom_1_priority");
    expect(rulesFieldOf("/rules/custom/0/keywords/1", sent, CALENDARS)).toBe("custom_1_keywords");
    expect(rulesFieldOf("/rules/skipCalendars/0", sent, CALENDARS)).toBe("skip_calendars");
  });

  it("keeps what the form does not show, and has no working hours unless ticked", () => {
    // Prepare
    const stored = {
      ...DEFAULT_RULES,
      locale: "de-DE",
      bridgeGapMinutes: 10,
      workingHours: {
        days: ["mon" as const],
        start: "09:00",
        end: "17:00",
        text: "Off",
        emoji: ":x:",
        dnd: false,
      },
    };
    // Act
    const rules = rulesFromForm(
      form({ working_hours_start: "08:00", standing: "restore" }),
      stored,
      [],
    );
    // Assess
    expect([rules.locale, rules.bridgeGapMinutes, rules.workingHours, rules.standing]).toEqual([
      "de-DE",
      10,
      undefined,
      "restore",
    ]);
  });
});
