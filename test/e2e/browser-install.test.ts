import { copyFileSync, mkdirSync, statSync } from "node:fs";
import path from "node:path";
import type { Page } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { browserOnStackForFile, onPage, textIn } from "./browser-support";
import { advanceTo, type E2e, statuspilotProfileSets, T0 } from "./support";

/**
 * A newcomer's first minutes, in a real headless Chromium against the local stack as
 * `statuspilot start` runs it: /install, the emulator's consent page, the settings page, a
 * calendar pasted in, pause and resume, and the first status at the meeting's start.
 * `STATUSPILOT_SCREENSHOT=docs/settings-page.png` also writes the settings page's screenshot
 * there (the README's picture); otherwise it goes to a temporary directory only.
 */

const S = 1000;
const TZ = "Europe/Berlin";

let e: E2e;
let page: Page;
const tempDir = browserOnStackForFile({ name: "browser", tz: TZ }, async (running) => {
  ({ e, page } = running);
});

const { clickAndWait, sectionText, textIn: textOf } = onPage(() => page);

/** What the Today section says shows now. */
const nowShown = (): Promise<string> => textIn(page, 'section[aria-labelledby="today"] .now');

describe("installing Statuspilot in a browser", () => {
  it("goes from /install through consent to the settings page, adds a calendar, pauses and resumes, and the first status follows", async () => {
    // Act: /install sends the browser to the emulator's consent page
    await page.goto(e.installUrl, { waitUntil: "load" });
    // Assess
    expect(new URL(page.url()).pathname).toBe("/oauth/v2/authorize");

    // Act: pick the demo user, Allow
    await page.select("#as", "U001");
    await clickAndWait('button[name="decision"][value="allow"]');
    // Assess: back on the stack, signed in
    expect(page.url()).toBe(`${e.url}/settings`);
    expect(await sectionText("calendars")).toContain("No calendar yet");

    // Act: paste the demo calendar's address and submit
    await page.type("#calendar-url", e.feedUrl("U001"));
    await clickAndWait('form[action="/settings/calendars/add"] button[type="submit"]');
    // The read that checked the address is its first sync: the page it lands on shows it.
    // Assess: the calendar is listed and today's timeline has the stand-up (11:59 in Berlin)
    const calendars = await sectionText("calendars");
    expect(calendars).toContain("Statuspilot demo");
    expect(calendars).toContain("ICS feed, http://127.0.0.1");
    expect(calendars).not.toContain("No calendar yet");
    const today = await sectionText("today");
    expect(today).toContain("11:59–11:59 \u{1F5D3}\uFE0F In a meeting");
    expect(today).toContain("Next change: Mon, 10 Mar 2025, 11:59, \u{1F5D3}\uFE0F In a meeting");
    expect(await nowShown()).toBe("no status");

    // Act: pause
    await clickAndWait('form[action="/settings/pause"] button[type="submit"]');
    // Assess
    expect(await sectionText("pause")).toContain("Paused");
    expect(await sectionText("today")).toContain("nothing below is applied until you resume");

    // Act: resume, then the clock reaches the stand-up (10:59:21 UTC)
    await clickAndWait('form[action="/settings/resume"] button[type="submit"]');
    expect(await sectionText("pause")).toContain("Running");
    await advanceTo(e, T0 + 30 * S);
    // Assess: the first status reached the service, set by Statuspilot with the installed token
    expect(await statuspilotProfileSets(e, "U001")).toEqual([
      expect.objectContaining({
        status_text: "In a meeting",
        status_emoji: ":spiral_calendar_pad:",
      }),
    ]);

    // Act: the page now, as the README shows it
    await page.goto(`${e.url}/settings`, { waitUntil: "load" });
    const screenshot = path.join(tempDir, "settings-page.png");
    // The first phone screen (connection, today, calendars): small enough for the README.
    await page.screenshot({ path: screenshot });
    // Assess
    expect(await nowShown()).toBe("\u{1F5D3}\uFE0F In a meeting until 11:59");
    expect(statSync(screenshot).size).toBeGreaterThan(1000);
    const published = process.env.STATUSPILOT_SCREENSHOT;
    if (published) {
      mkdirSync(path.dirname(path.resolve(published)), { recursive: true });
      copyFileSync(screenshot, path.resolve(published));
    }
  }, 90_000);

  it("signs out from the settings page: the session ends, a copy of its cookie is refused, and signing in again is offered", async () => {
    // Prepare: signed in by the test above; keep the session cookie as a thief would
    await page.goto(`${e.url}/settings`, { waitUntil: "load" });
    const session = (await page.cookies()).find((c) => c.name.includes("statuspilot_session"));
    expect(session).toBeDefined();

    // Act: the page's own Sign out button
    await clickAndWait('form[action="/settings/sign-out"] button[type="submit"]');
    // Assess: it says so, offers the way back in, and the browser holds no session any more
    expect(await textOf("h1")).toBe("Signed out");
    expect(await textOf("main p")).toContain("Nothing was deleted");
    expect(await page.$eval("a.button", (a) => a.getAttribute("href"))).toBe("/install");
    expect(await textOf("a.button")).toBe("Sign in again");
    expect((await page.cookies()).some((c) => c.name.includes("statuspilot_session"))).toBe(false);

    // Act: the settings page again, then with the old cookie put back (a replay)
    await page.goto(`${e.url}/settings`, { waitUntil: "load" });
    const afterSignOut = new URL(page.url()).pathname;
    if (session) await page.setCookie(session);
    await page.goto(`${e.url}/settings`, { waitUntil: "load" });
    // Assess: both times sent to sign in (the consent page), never the settings
    expect(afterSignOut).toBe("/oauth/v2/authorize");
    expect(new URL(page.url()).pathname).toBe("/oauth/v2/authorize");
  }, 60_000);
});
