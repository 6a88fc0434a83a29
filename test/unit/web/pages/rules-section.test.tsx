import { describe, expect, it } from "vitest";
import { renderSettingsPage } from "../../../../lib/web/pages/settings";
import { settingsView } from "./fixtures";
import { forms, tags } from "./html";

// The rules form as rendered (lib/web/pages/rules-section.tsx): a row per stored status plus an
// empty one, a reconnect beside each Do Not Disturb switch when the install lacks the scopes, and
// a refused form's ticked boxes ticked again.

const LUNCH = {
  name: "Lunch",
  text: "Out for lunch",
  emoji: ":fork_and_knife:",
  priority: 25,
  keywords: ["lunch"],
  calendars: ["src-2"],
  dnd: true,
};

const rulesForm = (html: string) =>
  forms(html).find((f) => f.action === "/settings/rules")?.inner ?? "";

describe("the rules form", () => {
  it("has a row per stored status and an empty one, each switch as stored", () => {
    // Prepare
    const base = settingsView();
    const view = settingsView({
      rules: { ...base.rules, custom: [LUNCH], skipCalendars: ["src-1"] },
    });
    // Act
    const inputs = tags(rulesForm(renderSettingsPage(view)), "input");
    const byName = (name: string) => inputs.find((i) => i.attrs.name === name)?.attrs;
    // Assess
    expect(byName("custom_0_name")?.value).toBe("Lunch");
    expect(byName("custom_0_priority")?.value).toBe("25");
    expect(byName("custom_0_dnd")).toHaveProperty("checked");
    expect(byName("custom_0_calendars_src-2")).toHaveProperty("checked");
    expect(byName("custom_0_calendars_src-1")).not.toHaveProperty("checked");
    expect(byName("custom_1_name")?.value).toBe("");
    expect(byName("custom_1_delete")).toBeUndefined();
    expect(byName("skip_calendars_src-1")).toHaveProperty("checked");
    expect(byName("working_hours")).not.toHaveProperty("checked");
    expect(
      inputs.filter((i) => i.attrs.name === "standing").map((i) => "checked" in i.attrs),
    ).toEqual([true, false]);
  });

  it("offers a reconnect beside each Do Not Disturb switch only while the scopes are missing", () => {
    // Act
    const without = renderSettingsPage(settingsView({ dndReconnect: true }));
    const granted = renderSettingsPage(settingsView());
    // Assess: 3 kinds, the empty row and working hours each have a switch.
    const switches = tags(rulesForm(without), "input").filter((i) =>
      i.attrs.name?.endsWith("_dnd"),
    );
    const links = tags(rulesForm(without), "a").filter((a) => a.attrs.href === "/install");
    expect(switches.length).toBe(5);
    expect(links.length).toBe(5);
    expect(rulesForm(without)).toContain("Reconnect to allow Do Not Disturb");
    expect(rulesForm(granted)).not.toContain("Reconnect to allow Do Not Disturb");
  });

  it("ticks again what a refused form had ticked, and marks a refused list", () => {
    // Act
    const html = renderSettingsPage(
      settingsView({
        refused: {
          action: "/settings/rules",
          values: { "custom_0_calendars_src-1": "on", custom_0_calendars: "" },
          errors: { custom_0_calendars: "no such calendar" },
        },
      }),
    );
    // Assess
    const inputs = tags(rulesForm(html), "input");
    expect(inputs.find((i) => i.attrs.name === "custom_0_calendars_src-1")?.attrs).toHaveProperty(
      "checked",
    );
    expect(
      inputs.find((i) => i.attrs.name === "custom_0_calendars_src-2")?.attrs,
    ).not.toHaveProperty("checked");
    const list = tags(rulesForm(html), "fieldset").find((f) => f.attrs.id === "custom-0-calendars");
    expect(list?.attrs["aria-invalid"]).toBe("true");
    expect(rulesForm(html)).toContain("no such calendar");
  });
});
