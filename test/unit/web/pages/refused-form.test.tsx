import { describe, expect, it } from "vitest";
import { InvalidInputError } from "#lib/app/errors";
import { parseInput } from "#lib/app/inputs";
import { userRulesSchema, userRulesSchemaFor } from "#lib/core/rules";
import { STATUS_KINDS, type StatusKindEntry } from "#lib/core/status-kinds";
import { refusedFormOf } from "../../../../functions/shared/web-settings-forms";
import { CheckBox, PostForm, RefusedFormContext, TextField } from "../../../../lib/web/pages/forms";
import { renderPage } from "../../../../lib/web/pages/layout";
import { renderSettingsPage } from "../../../../lib/web/pages/settings";
import {
  FIELDS,
  type RefusedForm,
  ruleField,
  ruleFieldOfPointer,
  SETTINGS_ACTIONS,
} from "../../../../lib/web/pages/view-model";
import { settingsView } from "./fixtures";
import { tags } from "./html";

// Issue 28 item 7: a refused rules form is shown again as typed, each bad field marked with its
// reason. Rule members are added over time (custom statuses, working hours), so the field of a
// problem is derived from its JSON pointer, never listed by hand: these tests name fields the
// page does not have yet.

/** The problems the rules schema finds in `rules`, as the use case throws them. */
function problemsOf(rules: unknown, schema = userRulesSchema): InvalidInputError {
  try {
    parseInput(schema, rules, "/rules");
  } catch (error: unknown) {
    if (error instanceof InvalidInputError) return error;
    throw error;
  }
  throw new Error("the rules were valid");
}

describe("the form field of a rules member", () => {
  it.each([
    [["focus", "emoji"], "focus_emoji"],
    [["meeting", "keywords", 3], "meeting_keywords"],
    [["showTitles"], "show_titles"],
    [["workingHours", "startsAt"], "working_hours_starts_at"],
    [["customStatuses", 2, "emoji"], "custom_statuses_emoji"],
  ])("%j is %s", (path, field) => {
    expect(ruleField(...path)).toBe(field);
    expect(ruleFieldOfPointer(`/rules/${path.join("/")}`)).toBe(field);
  });

  it("names the fields the form has by the same derivation", () => {
    expect([FIELDS.ruleEmoji("focus"), FIELDS.ruleKeywords("ooo"), FIELDS.skipTentative]).toEqual([
      "focus_emoji",
      "ooo_keywords",
      "skip_tentative",
    ]);
  });

  it("is no field for a pointer outside the rules, or the rules as a whole", () => {
    expect(ruleFieldOfPointer("/url")).toBeUndefined();
    expect(ruleFieldOfPointer("/rulesets/x")).toBeUndefined();
    expect(ruleFieldOfPointer("/rules")).toBeUndefined();
  });
});

describe("a refused rules form", () => {
  it("reports every bad member, not only the first", () => {
    const error = problemsOf({
      focus: { emoji: "headphones" },
      ooo: { text: " ", emoji: ":palm tree:" },
    });
    expect(error.problems.map((p) => p.pointer).sort()).toEqual([
      "/rules/focus/emoji",
      "/rules/ooo/emoji",
      "/rules/ooo/text",
    ]);
  });

  it("places a new kind's problem on its field, and lists one no field shows", () => {
    // Prepare: a kind the page does not know, through the same schema builder.
    const commuting = {
      kind: "commuting",
      label: "commuting",
      priority: 0,
      defaults: { text: "Commuting", emoji: ":train:" },
      match: { keywords: [], allDay: false },
    } as const satisfies StatusKindEntry;
    const schema = userRulesSchemaFor([...STATUS_KINDS, commuting]);
    const error = problemsOf({ commuting: { emoji: "train" }, locale: "not a locale!" }, schema);
    const form = new URLSearchParams({ csrf: "t", commuting_emoji: "train", commuting_text: "x" });
    // Act
    const { refused, unplaced } = refusedFormOf("/settings/rules", form, error, (pointer) =>
      ruleFieldOfPointer(pointer),
    );
    // Assess
    expect(refused).toEqual({
      action: "/settings/rules",
      values: { commuting_emoji: "train", commuting_text: "x" },
      errors: { commuting_emoji: "emoji must be in colon form, e.g. :palm_tree:" },
    });
    expect(unplaced).toEqual(["locale: locale must be a BCP 47 tag, e.g. en-GB"]);
  });

  it("marks any field of the refused form, whatever it is, and keeps what was typed", () => {
    // Prepare: fields the page does not have yet, in a refused form.
    const refused: RefusedForm = {
      action: "/settings/rules",
      values: { working_hours_starts_at: "25:00" },
      errors: { working_hours_starts_at: "not a time of day", works_weekends: "say yes or no" },
    };
    // Act
    const html = renderPage(
      <RefusedFormContext.Provider value={refused}>
        <PostForm action="/settings/rules" csrfToken="t">
          <TextField id="wh-start" name="working_hours_starts_at" label="Start" value="09:00" />
          <CheckBox id="wh-weekends" name="works_weekends" label="Weekends" checked />
        </PostForm>
        <PostForm action="/settings/other" csrfToken="t">
          <TextField id="other" name="working_hours_starts_at" label="Start" value="09:00" />
        </PostForm>
      </RefusedFormContext.Provider>,
    );
    // Assess: the refused form's fields show what was typed (the box was left unticked) and
    // are marked; the same name in another form is not.
    const input = (id: string) => tags(html, "input").find((t) => t.attrs.id === id)?.attrs;
    expect(input("wh-start")).toMatchObject({
      value: "25:00",
      "aria-invalid": "true",
      "aria-describedby": "wh-start-error",
    });
    expect(input("wh-weekends")).not.toHaveProperty("checked");
    expect(input("wh-weekends")).toMatchObject({ "aria-describedby": "wh-weekends-error" });
    expect(html).toContain('<p id="wh-start-error" class="problem">not a time of day</p>');
    expect(input("other")?.value).toBe("09:00");
    expect(input("other")).not.toHaveProperty("aria-invalid");
  });

  it("puts the reason before the hint in what describes the field, and leaves good fields alone", () => {
    // Act
    const html = renderSettingsPage(
      settingsView({
        refused: {
          action: SETTINGS_ACTIONS.saveRules,
          values: { focus_emoji: "headphones", focus_text: "Deep work" },
          errors: { focus_emoji: "emoji must be in colon form, e.g. :palm_tree:" },
        },
      }),
    );
    const input = (name: string) => tags(html, "input").find((t) => t.attrs.name === name)?.attrs;
    // Assess
    expect(input("focus_emoji")).toMatchObject({
      value: "headphones",
      "aria-invalid": "true",
      "aria-describedby": "rule-focus-emoji-error rule-focus-emoji-hint",
    });
    expect(input("focus_text")).toMatchObject({ value: "Deep work" });
    expect(input("focus_text")).not.toHaveProperty("aria-invalid");
    // The other forms show what is stored.
    expect(input("first_day")?.value).toBe("2025-03-03");
  });
});
