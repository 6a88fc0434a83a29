import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostileFeed } from "#bench/fixtures/hostile-feed";
import { FIRST_SYNC_DEADLINE_MS } from "#lib/app/sync/feed-probe";
import { EXPANSION_CPU_BUDGET_MS, MAX_OCCURRENCES_PER_EVENT } from "#lib/calendar/work-budget";
import { csrfOf, type FrontDoorStack, installUser, startFrontDoor, T0, visit } from "./support";

/**
 * A calendar over a cap, as its owner meets it on the settings page: the check when it is added
 * refuses one too large to read (a gzip that inflates to 300 MB) with the page's notice, and one
 * that reads up to a cap is told about in words beside that calendar, the other one untouched.
 */

const MB = 1024 * 1024;
const HEAD = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n";
/** 300 gzip members of 1 MB of calendar text each: about 306 KB, 300 MB once inflated. */
const bomb = Buffer.concat(
  Array(300).fill(gzipSync(Buffer.from(HEAD + "X".repeat(MB - HEAD.length)), { level: 9 })),
);

let stack: FrontDoorStack;
beforeAll(async () => {
  stack = await startFrontDoor({
    feeds: {
      "/hidden-9d2c/minutely.ics": hostileFeed({ around: T0, minutely: 1 }),
      // Millions of steps before the window: it would take the whole CPU budget, and more.
      "/hidden-9d2c/secondly.ics": hostileFeed({ around: T0, secondly: 200 }),
    },
    gzipFeeds: { "/hidden-9d2c/bomb.ics": bomb },
  });
});
afterAll(async () => {
  await stack?.close();
});

/** The page's list items, each one calendar. */
const calendarItems = (html: string): string[] =>
  html
    .slice(html.indexOf('id="calendars"'))
    .split("<li")
    .slice(1)
    .map((item) => item.slice(0, item.indexOf("</li>")));

describe("a calendar over a cap, on its owner's settings page", () => {
  it("refuses a gzip that inflates past the sync's cap with the page's notice, adding nothing", async () => {
    // Arrange
    const { jar } = await installUser(stack, "U002");
    const page = await visit(jar, `${stack.web}/settings`);
    // Act
    const added = await visit(jar, `${stack.web}/settings/calendars/add`, {
      form: { csrf: csrfOf(await page.text()), url: `${stack.calendarBase}/hidden-9d2c/bomb.ics` },
    });
    // Assert
    expect(added.status).toBe(303);
    expect(added.headers.get("location")).toBe("/settings?notice=calendar_refused");
    expect(stack.syncs.sent).toEqual([]);
  });

  it("says beside the calendar which cap it reached, and reads the other calendar in full", async () => {
    // Arrange: the demo calendar, then one whose single event repeats every minute.
    const { jar } = await installUser(stack, "U001");
    const add = async (url: string) => {
      const page = await visit(jar, `${stack.web}/settings`);
      const res = await visit(jar, `${stack.web}/settings/calendars/add`, {
        form: { csrf: csrfOf(await page.text()), url },
      });
      expect(res.headers.get("location")).toBe("/settings?notice=calendar_added");
    };
    await add(stack.calendarUrl);
    await add(`${stack.calendarBase}/hidden-9d2c/minutely.ics`);
    // Act
    await stack.drainSyncs();
    const html = await (await visit(jar, `${stack.web}/settings`)).text();
    // Assert
    const [demo, minutely] = calendarItems(html);
    const cap = MAX_OCCURRENCES_PER_EVENT.toLocaleString("en-GB");
    expect(minutely).toContain(
      `This calendar is too large to read in full: an event in it repeats more than ${cap} times in two weeks. Only its first ${cap} are used.`,
    );
    expect(minutely).toContain("Last good read");
    expect(demo).toContain("Last good read");
    expect(demo).not.toContain("problem");
    expect(stack.emulator.state().profiles.U001?.status_text).toBe("In a meeting");
  });

  it("leaves a calendar too slow to read in the web function to the sync worker, and answers in time", async () => {
    // Arrange
    const { jar } = await installUser(stack, "U002");
    const page = await visit(jar, `${stack.web}/settings`);
    const queuedBefore = stack.syncs.sent.length;
    const started = performance.now();
    // Act
    const added = await visit(jar, `${stack.web}/settings/calendars/add`, {
      form: {
        csrf: csrfOf(await page.text()),
        url: `${stack.calendarBase}/hidden-9d2c/secondly.ics`,
      },
    });
    const answeredInMs = performance.now() - started;
    // Assert: saved, its sync queued (where it has its whole budget), well before the web
    // function's 10 s; it would have taken the whole budget in the web function.
    expect(added.headers.get("location")).toBe("/settings?notice=calendar_queued");
    expect(answeredInMs).toBeLessThan(FIRST_SYNC_DEADLINE_MS + 1_000);
    expect(answeredInMs).toBeLessThan(EXPANSION_CPU_BUDGET_MS);
    expect(stack.syncs.sent.slice(queuedBefore)).toEqual([
      expect.objectContaining({ user: "U002", reason: "manual" }),
    ]);
  });
});
