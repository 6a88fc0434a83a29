import type { Page } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import {
  addDemoCalendar,
  browserOnStackForFile,
  installAsU001,
  onPage,
  textIn,
} from "./browser-support";
import type { E2e } from "./support";

/**
 * The rules form (issue 25 section 3) on a phone, in a real headless Chromium with JavaScript
 * off, against the local stack: a person adds a status of their own, turns on Do Not Disturb,
 * working hours, restore and skipping events without guests, reads why each event of today
 * shows what it shows, then edits and deletes their status. The expected words are written out
 * by hand; the demo day (lib/local/demo-feed.ts) in Berlin: stand-up 11:59, design review
 * 12:00, lunch 12:01–12:02, focus time 12:04–12:07.
 */

const TZ = "Europe/Berlin";
const SAVE = 'form[action="/settings/rules"] button[type="submit"]';

let e: E2e;
let page: Page;

const { clickAndWait, sectionText, fill, fieldValue } = onPage(() => page);
const isChecked = (selector: string): Promise<boolean> =>
  page.$eval(selector, (el) => (el as HTMLInputElement).checked);

browserOnStackForFile({ name: "browser-rules", tz: TZ, javascript: false }, async (running) => {
  ({ e, page } = running);
  await installAsU001(running);
  await addDemoCalendar(running);
});

describe("the rules form on a phone", () => {
  it("labels every field, fits the phone's width, and lists the calendar by its name", async () => {
    // Act
    const unlabelled = await page.$$eval(
      'form[action="/settings/rules"] input:not([type=hidden]), form[action="/settings/rules"] select, form[action="/settings/rules"] textarea',
      (els) =>
        els
          .filter((el) => (el as HTMLInputElement).labels?.length === 0)
          .map((el) => el.getAttribute("name")),
    );
    // Assess
    expect(unlabelled).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    expect(await sectionText("calendars")).toContain("Statuspilot demo");
  }, 60_000);

  it("adds a status of one's own with the other rules, and Today says why each event shows what it does", async () => {
    // Prepare: the empty row, Do Not Disturb in meetings, working hours, restore, no guests.
    await fill("#custom-0-name", "Lunch");
    await fill("#custom-0-text", "Out for lunch");
    await fill("#custom-0-emoji", ":fork_and_knife:");
    await fill("#custom-0-priority", "25");
    await fill("#custom-0-keywords", "lunch");
    await page.click("#rule-meeting-dnd");
    await page.click("#working-hours");
    await fill("#working-hours-end", "18:00");
    await page.click("#rule-standing-restore");
    await page.click("#rule-skip-no-guests");
    // Act
    await clickAndWait(SAVE);
    // Assess: saved, and the page shows the rules as saved.
    expect(await textIn(page, ".notice")).toBe("Rules saved.");
    expect(await fieldValue("#custom-0-name")).toBe("Lunch");
    expect(await fieldValue("#custom-0-priority")).toBe("25");
    expect(await fieldValue("#custom-1-name")).toBe("");
    expect(await isChecked("#rule-meeting-dnd")).toBe(true);
    expect(await isChecked("#rule-focus-dnd")).toBe(false);
    expect(await isChecked("#working-hours")).toBe(true);
    expect(await fieldValue("#working-hours-end")).toBe("18:00");
    expect(await isChecked("#rule-standing-restore")).toBe(true);
    expect(await isChecked("#rule-skip-no-guests")).toBe(true);
    // Today: each event, its status (emoji as emoji: 🍴 U+1F374, 🎧 U+1F3A7), and the rule.
    const today = await sectionText("today");
    expect(today).toContain("11:59–11:59 Team stand-up skipped: no guests");
    expect(today).toContain(
      "12:01–12:02 Lunch with the team \u{1F374} Out for lunch · Lunch: keyword lunch",
    );
    expect(today).toContain(
      "12:04–12:07 Focus time \u{1F3A7} Focus time · focus time: keyword focus",
    );
    expect(today).not.toMatch(/:fork_and_knife:|:headphones:/);
  }, 60_000);

  it("marks a bad field in the row it was typed in, and saves nothing", async () => {
    // Prepare
    await fill("#custom-0-text", "Lunch break");
    await fill("#custom-0-emoji", "fork and knife");
    // Act
    await clickAndWait(SAVE);
    // Assess
    expect(await textIn(page, ".notice")).toContain("Those rules were not saved");
    expect(await fieldValue("#custom-0-text")).toBe("Lunch break");
    const marked = await page.$$eval('[aria-invalid="true"]', (els) =>
      els.map((el) => el.getAttribute("name")),
    );
    expect(marked).toEqual(["custom_0_emoji"]);
    expect(await textIn(page, "#custom-0-emoji-error")).toBe(
      "emoji must be in colon form, e.g. :palm_tree:",
    );
    await page.goto(`${e.url}/settings`, { waitUntil: "load" });
    expect(await fieldValue("#custom-0-text")).toBe("Out for lunch");
  }, 60_000);

  it("edits the status, then deletes it", async () => {
    // Act 1
    await fill("#custom-0-text", "Lunch break");
    await clickAndWait(SAVE);
    // Assess 1
    expect(await textIn(page, ".notice")).toBe("Rules saved.");
    expect(await sectionText("today")).toContain("\u{1F374} Lunch break · Lunch: keyword lunch");
    // Act 2
    await page.click("#custom-0-delete");
    await clickAndWait(SAVE);
    // Assess 2: gone; the lunch is a meeting again, skipped for having no guests.
    expect(await textIn(page, ".notice")).toBe("Rules saved.");
    expect(await fieldValue("#custom-0-name")).toBe("");
    expect(await page.$("#custom-0-delete")).toBeNull();
    expect(await sectionText("today")).toContain(
      "12:01–12:02 Lunch with the team skipped: no guests",
    );
    // The other rules stayed as saved.
    expect(await isChecked("#rule-meeting-dnd")).toBe(true);
    expect(await isChecked("#rule-standing-restore")).toBe(true);
  }, 60_000);
});
