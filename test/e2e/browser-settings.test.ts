import type { Page } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { browserOnStackForFile, installAsU001, onPage, textIn } from "./browser-support";
import type { E2e } from "./support";

/**
 * The settings page on a phone, in a real headless Chromium with JavaScript off (the page needs
 * none), against the local stack as `statuspilot start` runs it (issue 28 items 5 to 7): what a
 * person reads right after each form. The expected words are written out by hand.
 */

const TZ = "Europe/Berlin";

let e: E2e;
let page: Page;

const { clickAndWait, sectionText, fill, fieldValue } = onPage(() => page);

browserOnStackForFile({ name: "browser-settings", tz: TZ, javascript: false }, async (running) => {
  ({ e, page } = running);
  // Install: /install, the emulator's consent page as U001, back on the settings page.
  await installAsU001(running);
  expect(page.url()).toBe(`${e.url}/settings`);
});

describe("the settings page on a phone", () => {
  it("shows a calendar's events on the page that confirms it was added (item 6)", async () => {
    // Act: paste the demo calendar's address and submit; no clock moves, no queue runs.
    await page.type("#calendar-url", e.feedUrl("U001"));
    await clickAndWait('form[action="/settings/calendars/add"] button[type="submit"]');
    // Assess: read at 11:59 Berlin time; today has the stand-up (10:59:21–10:59:51 UTC).
    expect(await textIn(page, ".notice")).toBe("Calendar added and read: its events are below.");
    const today = await sectionText("today");
    expect(today).toContain("11:59–11:59 \u{1F5D3}\uFE0F In a meeting");
    expect(today).not.toContain("Nothing on your calendars today");
    const calendars = await sectionText("calendars");
    expect(calendars).toContain("Last good read Mon, 10 Mar 2025, 11:59");
    expect(calendars).not.toContain("Not read yet");
  }, 60_000);

  it("lists an out-of-office of whole days as they were picked (item 5)", async () => {
    // Act: away from Wednesday 12 to Friday 14 March (T0 is Monday 10 March 2025).
    await fill("#ooo-first-day", "2025-03-12");
    await fill("#ooo-last-day", "2025-03-14");
    await clickAndWait('form[action="/settings/ooo/add"] button[type="submit"]');
    // Assess: the last day is the one picked, no midnight times, no day after.
    const listed = await sectionText("ooo");
    expect(listed).toMatch(/Wed 12( Mar)? – Fri 14 Mar/);
    expect(listed).not.toMatch(/00:00|Sat|15/);
  }, 60_000);

  it("keeps the rules typed, marks each bad field with its reason beside it, and saves nothing (item 7)", async () => {
    // Prepare: a new meeting text, titles shown, and two emoji not in colon form.
    await fill("#rule-meeting-text", "Heads down in a call");
    await fill("#rule-focus-emoji", "headphones");
    await fill("#rule-ooo-emoji", ":palm tree:");
    await page.click("#rule-show-titles");
    // Act
    await clickAndWait('form[action="/settings/rules"] button[type="submit"]');
    // Assess: the page says nothing was saved, and everything typed is still there.
    expect(await textIn(page, ".notice")).toContain("Those rules were not saved");
    expect(await fieldValue("#rule-meeting-text")).toBe("Heads down in a call");
    expect(await fieldValue("#rule-focus-emoji")).toBe("headphones");
    expect(await fieldValue("#rule-ooo-emoji")).toBe(":palm tree:");
    expect(await page.$eval("#rule-show-titles", (el) => (el as HTMLInputElement).checked)).toBe(
      true,
    );
    // Each bad field is marked, and its reason is what describes it, right under it.
    for (const id of ["rule-focus-emoji", "rule-ooo-emoji"]) {
      const field = await page.$eval(`#${id}`, (el) => ({
        invalid: el.getAttribute("aria-invalid"),
        describedBy: el.getAttribute("aria-describedby") ?? "",
        bottom: el.getBoundingClientRect().bottom,
      }));
      expect(field.invalid, id).toBe("true");
      const reasonId = field.describedBy.split(" ")[0] ?? "";
      const reason = await page.$eval(`#${reasonId}`, (el) => ({
        text: el.textContent,
        top: el.getBoundingClientRect().top,
        width: el.getBoundingClientRect().width,
      }));
      expect(reason.text).toBe("emoji must be in colon form, e.g. :palm_tree:");
      expect(reason.top - field.bottom, id).toBeGreaterThanOrEqual(0);
      expect(reason.top - field.bottom, id).toBeLessThan(24);
      expect(reason.width, id).toBeLessThanOrEqual(390);
    }
    const marked = await page.$$eval('[aria-invalid="true"]', (els) =>
      els.map((el) => el.getAttribute("name")),
    );
    expect(marked.sort()).toEqual(["focus_emoji", "ooo_emoji"]);
    // The page still fits the phone's width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(
      390,
    );
    // Nothing was saved: the page loaded afresh shows the rules as they were.
    await page.goto(`${e.url}/settings`, { waitUntil: "load" });
    expect(await fieldValue("#rule-meeting-text")).toBe("In a meeting");
    expect(await fieldValue("#rule-focus-emoji")).toBe(":headphones:");
    expect(await page.$eval("#rule-show-titles", (el) => (el as HTMLInputElement).checked)).toBe(
      false,
    );
    expect(await page.$$('[aria-invalid="true"]')).toEqual([]);
  }, 60_000);
});
