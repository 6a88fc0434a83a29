import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DynamoStore } from "#lib/store/dynamo-store";
import { formData, forms, textOf } from "../../unit/web/pages/html";
import { type CookieJar, type FrontDoorStack, signedInAs, startFrontDoor, visit } from "./support";

// The rules form of the settings page (issue 25 section 3), over HTTP against the web function:
// what a browser sends for the form as shown, with the person's changes, and what is stored and
// shown after. Expected rules and words are written out by hand.

let stack: FrontDoorStack;
const KEY = { team: "T0DEMO", user: "U001" };

beforeEach(async () => {
  stack = await startFrontDoor();
});
afterEach(async () => {
  await stack.close();
});

const settingsHtml = async (jar: CookieJar): Promise<string> =>
  (await visit(jar, `${stack.web}/settings`)).text();

/** The rules form as the page shows it now, as a browser would send it. */
async function shownRulesForm(jar: CookieJar): Promise<URLSearchParams> {
  const form = forms(await settingsHtml(jar)).find((f) => f.action === "/settings/rules");
  if (form === undefined) throw new Error("no rules form on the page");
  return formData(form.inner);
}

/** Sends the rules form with `changes` applied (null: the field is not sent, an unticked box). */
async function saveRules(jar: CookieJar, changes: Record<string, string | null>) {
  const form = await shownRulesForm(jar);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) form.delete(name);
    else form.set(name, value);
  }
  return visit(jar, `${stack.web}/settings/rules`, { form: Object.fromEntries(form) });
}

const storedRules = async () =>
  (await stack.app.frontDoor?.useCases.selfView(KEY))?.rules ?? expect.fail("no user");

const sectionText = (html: string, id: string): string =>
  textOf(
    new RegExp(`<section aria-labelledby="${id}">([\\s\\S]*?)</section>`).exec(html)?.[1] ?? "",
  );

async function withCalendar(): Promise<{ jar: CookieJar; sourceId: string }> {
  const jar = await signedInAs(stack, "U001");
  const csrf = (await shownRulesForm(jar)).get("csrf") ?? "";
  await visit(jar, `${stack.web}/settings/calendars/add`, {
    form: { csrf, url: stack.calendarUrl },
  });
  const sourceId = (await stack.app.frontDoor?.useCases.selfView(KEY))?.calendars[0]?.id ?? "";
  return { jar, sourceId };
}

describe("the rules form", () => {
  it("keeps each kind's Do Not Disturb when the form is saved as shown", async () => {
    // Prepare: focus time and out of office in Do Not Disturb, saved elsewhere (the admin API).
    const jar = await signedInAs(stack, "U001");
    await stack.app.frontDoor?.useCases.saveRules(KEY, {
      focus: { dnd: true },
      ooo: { dnd: true },
    });
    // Act: save the form as the page shows it, changing only the meeting text.
    const saved = await saveRules(jar, { meeting_text: "On a call" });
    // Assess
    expect(saved.status).toBe(303);
    const rules = await storedRules();
    expect([rules.meeting.text, rules.meeting.dnd, rules.focus.dnd, rules.ooo.dnd]).toEqual([
      "On a call",
      false,
      true,
      true,
    ]);
  });

  it("adds, edits and deletes the person's own statuses", async () => {
    // Prepare
    const { jar, sourceId } = await withCalendar();
    // Act 1: fill in the empty row.
    await saveRules(jar, {
      custom_0_name: "Lunch",
      custom_0_text: "Out for lunch",
      custom_0_emoji: ":fork_and_knife:",
      custom_0_priority: "25",
      custom_0_keywords: "lunch\nbrunch",
      [`custom_0_calendars_${sourceId}`]: "on",
      custom_0_online: "no",
      custom_0_dnd: "on",
    });
    // Assess 1
    expect((await storedRules()).custom).toEqual([
      {
        name: "Lunch",
        text: "Out for lunch",
        emoji: ":fork_and_knife:",
        priority: 25,
        keywords: ["lunch", "brunch"],
        calendars: [sourceId],
        online: false,
        dnd: true,
      },
    ]);
    // Act 2: edit it, and add a second one in the new empty row.
    await saveRules(jar, {
      custom_0_text: "Lunch break",
      custom_0_online: "",
      custom_0_dnd: null,
      custom_1_name: "Interviewing",
      custom_1_text: "Interviewing",
      custom_1_emoji: ":handshake:",
      custom_1_keywords: "interview",
    });
    // Assess 2
    const edited = (await storedRules()).custom;
    expect(edited.map((c) => [c.name, c.text, c.online, c.dnd, c.priority])).toEqual([
      ["Lunch", "Lunch break", undefined, false, 25],
      ["Interviewing", "Interviewing", undefined, false, 15],
    ]);
    // Act 3: delete the first.
    await saveRules(jar, { custom_0_delete: "on" });
    // Assess 3
    expect((await storedRules()).custom.map((c) => c.name)).toEqual(["Interviewing"]);
  });

  it("sets working hours, restore, the calendars to skip and skipping events without guests", async () => {
    // Prepare
    const { jar, sourceId } = await withCalendar();
    // Act
    await saveRules(jar, {
      working_hours: "on",
      working_hours_days_fri: null,
      working_hours_days_sat: "on",
      working_hours_start: "08:30",
      working_hours_end: "16:00",
      working_hours_text: "Gone home",
      working_hours_emoji: ":house:",
      working_hours_dnd: "on",
      standing: "restore",
      [`skip_calendars_${sourceId}`]: "on",
      skip_no_guests: "on",
    });
    // Assess
    const rules = await storedRules();
    expect(rules.workingHours).toEqual({
      days: ["mon", "tue", "wed", "thu", "sat"],
      start: "08:30",
      end: "16:00",
      text: "Gone home",
      emoji: ":house:",
      dnd: true,
    });
    expect([rules.standing, rules.skipCalendars, rules.skipNoGuests]).toEqual([
      "restore",
      [sourceId],
      true,
    ]);
    // The page shows them back: the same form, sent again unchanged, changes nothing.
    await saveRules(jar, {});
    expect(await storedRules()).toEqual(rules);
    // Act 2: untick working hours.
    await saveRules(jar, { working_hours: null });
    expect((await storedRules()).workingHours).toBeUndefined();
  });

  it("marks a bad field of a custom status in the row it was typed in, keeping every row", async () => {
    // Prepare: one stored status, the second row about to be deleted.
    const jar = await signedInAs(stack, "U001");
    await stack.app.frontDoor?.useCases.saveRules(KEY, {
      custom: [
        { name: "Gone", text: "Gone", emoji: ":wave:", priority: 5 },
        { name: "Calls", text: "On a call", emoji: ":telephone:", priority: 12 },
      ],
    });
    const before = await storedRules();
    // Act: delete row 0, and give the new row (row 2) a priority out of range.
    const refused = await saveRules(jar, {
      custom_0_delete: "on",
      custom_2_name: "Lunch",
      custom_2_text: "Lunch",
      custom_2_emoji: ":fork_and_knife:",
      custom_2_priority: "150",
    });
    const html = await refused.text();
    // Assess: the error is beside row 2's priority (index 1 of the rules sent), nothing saved.
    expect(refused.status).toBe(422);
    expect(html).toMatch(
      /name="custom_2_priority"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*name="custom_2_priority"/,
    );
    expect(html).toContain("priority must be a whole number from 1 to 99");
    expect(html).toMatch(/name="custom_0_delete"[^>]*checked/);
    expect(await storedRules()).toEqual(before);
  });
});

describe("Today, and why", () => {
  it("lists each of today's events with its title, the status it shows and the rule that chose it", async () => {
    // Prepare: the calendar "Family" has "Weekly sync", 09:50–10:50 Berlin time.
    const { jar, sourceId } = await withCalendar();
    // Act 1: a status of the person's own for it.
    await saveRules(jar, {
      custom_0_name: "Syncs",
      custom_0_text: "In the weekly sync",
      custom_0_emoji: ":busts_in_silhouette:",
      custom_0_keywords: "sync",
    });
    await stack.drainSyncs();
    const today = sectionText(await settingsHtml(jar), "today");
    // Assess 1: 👥 is U+1F465.
    expect(today).toContain(
      "09:50–10:50 Weekly sync \u{1F465} In the weekly sync · Syncs: keyword sync",
    );
    // Act 2: skip the calendar.
    await saveRules(jar, { [`skip_calendars_${sourceId}`]: "on" });
    await stack.drainSyncs();
    const html = await settingsHtml(jar);
    // Assess 2: skipped, the calendar by its name; listed by it too.
    expect(sectionText(html, "today")).toContain(
      "09:50–10:50 Weekly sync skipped: calendar Family",
    );
    expect(sectionText(html, "calendars")).toContain("Family");
  });

  it("says the event with nobody else in it is skipped for no guests", async () => {
    // Prepare
    const { jar } = await withCalendar();
    // Act
    await saveRules(jar, { skip_no_guests: "on" });
    await stack.drainSyncs();
    // Assess
    expect(sectionText(await settingsHtml(jar), "today")).toContain(
      "09:50–10:50 Weekly sync skipped: no guests",
    );
  });

  it("offers a reconnect beside the Do Not Disturb toggles while the install lacks its scopes", async () => {
    // Prepare: the install keeps the scopes it was granted (the stack's app asks for dnd); the
    // record then says what an install from before that asked for leaves.
    const jar = await signedInAs(stack, "U001");
    expect((await stack.scan()).find((i) => i.SK === "PROFILE")?.data).toContain(
      '"grantedScopes":["users.profile:read","users.profile:write","users:read","dnd:read","dnd:write"]',
    );
    const users = new DynamoStore(stack.dynamo.client, stack.dynamo.tableName);
    const user = (await users.getUser(KEY)) ?? expect.fail("no user");
    await users.putUser(
      { ...user, grantedScopes: ["users.profile:read", "users.profile:write", "users:read"] },
      user.version,
    );
    // Act
    const rules = sectionText(await settingsHtml(jar), "rules");
    // Assess
    expect(rules).toContain("Reconnect to allow Do Not Disturb");
  });

  it("offers no reconnect once the install granted dnd:read and dnd:write", async () => {
    // Prepare: the user's record as an install that granted them leaves it.
    const jar = await signedInAs(stack, "U001");
    const users = new DynamoStore(stack.dynamo.client, stack.dynamo.tableName);
    const user = (await users.getUser(KEY)) ?? expect.fail("no user");
    await users.putUser(
      { ...user, grantedScopes: ["users.profile:write", "dnd:read", "dnd:write"] },
      user.version,
    );
    // Act
    const rules = sectionText(await settingsHtml(jar), "rules");
    // Assess
    expect(rules).toContain("Do Not Disturb while this shows");
    expect(rules).not.toContain("Reconnect to allow Do Not Disturb");
  });
});
