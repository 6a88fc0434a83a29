import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import chromium from "@sparticuz/chromium";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { afterAll, beforeAll } from "vitest";
import { demoEvents } from "#lib/local/demo-feed";
import { type E2e, startE2e, T0 } from "./support";

/** A real headless Chromium in front of the local stack, for the browser tests. */

/** Generous: a loaded two-core machine runs Chromium, the stack and other suites at once. */
export const NAVIGATION_MS = 20_000;

export interface BrowserOnStack {
  e: E2e;
  browser: Browser;
  /** A phone-sized tab: the pages must be readable there. */
  page: Page;
  close(): Promise<void>;
}

/**
 * The local stack on its manual clock at T0, serving U001's demo feed (in `tz`) without
 * registering them (they install Statuspilot themselves), and Chromium with one phone-sized tab;
 * `javascript: false` turns scripts off in it. State is kept under `stateDir`.
 */
export async function startBrowserOnStack(opts: {
  tz: string;
  stateDir: string;
  javascript?: boolean;
}): Promise<BrowserOnStack> {
  const [e, browser] = await Promise.all([
    startE2e(
      { U001: { tz: opts.tz, events: demoEvents(T0, opts.tz) } },
      { installed: false, stateDir: path.join(opts.stateDir, "state") },
    ),
    puppeteer.launch({
      args: chromium.args,
      executablePath: await chromium.executablePath(),
      headless: true,
    }),
  ]);
  const page = await browser.newPage();
  if (opts.javascript === false) await page.setJavaScriptEnabled(false);
  await page.setViewport({ width: 390, height: 844, deviceScaleFactor: 1 });
  page.setDefaultNavigationTimeout(NAVIGATION_MS);
  page.setDefaultTimeout(NAVIGATION_MS);
  return {
    e,
    browser,
    page,
    close: async () => {
      await browser.close();
      await e.close();
    },
  };
}

/** Clicks something that submits a form or follows a link, and waits for the next page. */
export const clickAndWait = async (page: Page, selector: string): Promise<void> => {
  await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(selector)]);
};

/** An element's text, each run of white space one space (ICU writes thin spaces in ranges). */
export const textIn = async (page: Page, selector: string): Promise<string> =>
  ((await page.$eval(selector, (element) => element.textContent)) ?? "").replace(/\s+/g, " ");

/** The text of the page's section headed by `id`. */
export const sectionText = (page: Page, id: string): Promise<string> =>
  textIn(page, `section[aria-labelledby="${id}"]`);

/**
 * A test file's stack and Chromium (startBrowserOnStack): started before its tests, then
 * `ready` (e.g. to take `e` and `page`, and install), and closed after them. State goes to a
 * temporary directory named for `name`, returned for the file's own use and removed at the end.
 */
export function browserOnStackForFile(
  opts: { name: string; tz: string; javascript?: boolean },
  ready: (running: BrowserOnStack) => Promise<void>,
): string {
  const tempDir = mkdtempSync(path.join(tmpdir(), `statuspilot-${opts.name}-`));
  let running: BrowserOnStack | undefined;
  beforeAll(async () => {
    running = await startBrowserOnStack({
      tz: opts.tz,
      stateDir: tempDir,
      javascript: opts.javascript,
    });
    await ready(running);
  }, 60_000);
  afterAll(async () => {
    await running?.close();
    rmSync(tempDir, { recursive: true, force: true });
  });
  return tempDir;
}

/** Installs Statuspilot as U001 (/install, the emulator's consent page, allow). */
export const installAsU001 = async ({ e, page }: BrowserOnStack): Promise<void> => {
  await page.goto(e.installUrl, { waitUntil: "load" });
  await page.select("#as", "U001");
  await clickAndWait(page, 'button[name="decision"][value="allow"]');
};

/** Pastes U001's demo calendar's address on the settings page and adds it. */
export const addDemoCalendar = async ({ e, page }: BrowserOnStack): Promise<void> => {
  await page.type("#calendar-url", e.feedUrl("U001"));
  await clickAndWait(page, 'form[action="/settings/calendars/add"] button[type="submit"]');
};

/** Sets a field as a person would leave it (date pickers differ by platform; the value not). */
export const fill = async (page: Page, selector: string, value: string): Promise<void> => {
  await page.$eval(
    selector,
    (element, v) => {
      (element as HTMLInputElement).value = v;
    },
    value,
  );
};

/** A field's value as the page holds it. */
export const fieldValue = (page: Page, selector: string): Promise<string> =>
  page.$eval(selector, (el) => (el as HTMLInputElement).value);

/**
 * The functions above, bound to a test file's page; `page` is read on each call, as the file
 * opens its page before its tests, after it defines them.
 */
export const onPage = (page: () => Page) => ({
  clickAndWait: (selector: string): Promise<void> => clickAndWait(page(), selector),
  sectionText: (id: string): Promise<string> => sectionText(page(), id),
  textIn: (selector: string): Promise<string> => textIn(page(), selector),
  fill: (selector: string, value: string): Promise<void> => fill(page(), selector, value),
  fieldValue: (selector: string): Promise<string> => fieldValue(page(), selector),
});
