import type { Page } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import {
  addDemoCalendar,
  browserOnStackForFile,
  clickAndWait as clickAndWaitOn,
  installAsU001,
  sectionText as sectionTextOf,
  textIn,
} from "./browser-support";
import { advance, type E2e } from "./support";

/**
 * The settings page's calendar health and Sync now (issue 26 §4), in a real headless Chromium
 * with JavaScript off, against the local stack: what a person reads after each press. The
 * expected words are written out by hand.
 */

let e: E2e;
let page: Page;
const SYNC_NOW = 'form[action="/settings/sync"] button[type="submit"]';

browserOnStackForFile(
  { name: "browser-sync", tz: "Europe/Berlin", javascript: false },
  async (running) => {
    ({ e, page } = running);
    await installAsU001(running);
    await addDemoCalendar(running);
  },
);

describe("Sync now and each calendar's health on the settings page", () => {
  it("shows the calendar's last good read and its next read", async () => {
    // Act
    const calendars = await sectionTextOf(page, "calendars");
    // Assess: read at 11:59 Berlin time; the poll reads it again within its quarter hour.
    expect(calendars).toContain("Last good read Mon, 10 Mar 2025, 11:59");
    expect(calendars).toMatch(/Next read Mon, 10 Mar 2025, 12:[01]\d/);
  }, 60_000);

  it("reads every calendar on a press, and not again on a second within the minute", async () => {
    // Act
    await clickAndWaitOn(page, SYNC_NOW);
    const first = await textIn(page, ".notice");
    await clickAndWaitOn(page, SYNC_NOW);
    const second = await textIn(page, ".notice");
    // Assess
    expect(first).toBe("Reading every calendar now: your status follows in seconds.");
    expect(second).toBe("Your calendars were read less than a minute ago: nothing was read again.");
  }, 60_000);

  it("shows a calendar whose address is gone with its error, in words, and since when", async () => {
    // Prepare: the address goes away; the next read fails.
    await fetch(e.feedUrl("U001"), { method: "DELETE" });
    await advance(e, 60_000);
    await clickAndWaitOn(page, SYNC_NOW);
    await advance(e, 10_000);
    // Act
    await page.goto(`${e.url}/settings`, { waitUntil: "load" });
    const calendars = await sectionTextOf(page, "calendars");
    // Assess
    expect(calendars).toMatch(/Failing since Mon, 10 Mar 2025, 12:0\d: /);
    expect(calendars).toContain("Last good read Mon, 10 Mar 2025, 11:59");
  }, 60_000);
});
