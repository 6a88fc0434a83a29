import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ALL_MODULES } from "#lib/app/compose/modules";
import { tags } from "../../unit/web/pages/html";
import {
  type CookieJar,
  csrfOf,
  DEMO_ICS_ETAG,
  type FrontDoorStack,
  signedInAs,
  startFrontDoor,
  visit,
} from "./support";

// What the settings page shows right after a form, over HTTP against the web function (issue
// 28 items 5 to 7). Expectations are the words a person would read, written out by hand.

let stack: FrontDoorStack;

beforeEach(async () => {
  stack = await startFrontDoor();
});
afterEach(async () => {
  await stack.close();
});

const installAs = (user: string): Promise<CookieJar> => signedInAs(stack, user);

const settingsHtml = async (jar: CookieJar): Promise<string> =>
  (await visit(jar, `${stack.web}/settings`)).text();

/** Sends a form of the page with this session's CSRF token. */
async function post(jar: CookieJar, path: string, form: Record<string, string>) {
  const csrf = csrfOf(await settingsHtml(jar));
  return visit(jar, `${stack.web}${path}`, { form: { csrf, ...form } });
}

/** A section's text, tags dropped. */
const sectionText = (html: string, id: string): string =>
  (new RegExp(`<section aria-labelledby="${id}">([\\s\\S]*?)</section>`).exec(html)?.[1] ?? "")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim();

describe("out-of-office dates (issue 28 item 5)", () => {
  it("lists whole days as picked, in the locale of the person's rules", async () => {
    // Prepare: a person in Berlin whose rules ask for German dates.
    const jar = await installAs("U001");
    await stack.app.frontDoor?.useCases.saveRules(
      { team: "T0DEMO", user: "U001" },
      {
        locale: "de-DE",
      },
    );
    // Act: away from Wednesday 7 to Thursday 8 January 2026.
    await post(jar, "/settings/ooo/add", { first_day: "2026-01-07", last_day: "2026-01-08" });
    const html = await settingsHtml(jar);
    // Assess
    const listed = sectionText(html, "ooo");
    expect(listed).toMatch(/Mi\., 7\.( Jan\.)? – Do\., 8\. Jan\./);
    expect(listed).not.toContain("00:00");
  });
});

describe("a calendar just added (issue 28 item 6)", () => {
  it("shows its events, its read and the status they set on the page that confirms it, from the read that checked it", async () => {
    // Prepare: U001 in Berlin; the demo calendar's meeting runs 09:50–10:50 Berlin time, and it
    // is 10:00 there.
    const jar = await installAs("U001");
    // Act: add the calendar and follow the redirect, as a browser does; no sync worker runs.
    const added = await post(jar, "/settings/calendars/add", { url: stack.calendarUrl });
    const location = added.headers.get("location") ?? "";
    const html = await (await visit(jar, `${stack.web}${location}`)).text();
    // Assess: the page says it was read, Today has the meeting, the calendar its first read.
    expect(location).toBe("/settings?notice=calendar_added");
    expect(html).toContain("Calendar added and read");
    expect(html).not.toContain("appear within a minute");
    const today = sectionText(html, "today");
    expect(today).toContain("09:50–10:50 \u{1F5D3}\uFE0F In a meeting (now)");
    expect(today).not.toContain("Nothing on your calendars today");
    const calendars = sectionText(html, "calendars");
    expect(calendars).toContain("Last good read Mon, 5 Jan 2026, 10:00");
    expect(calendars).not.toContain("Not read yet");
    // The status follows at once, and the read was the only one: no sync was queued for it.
    expect(stack.emulator.state().profiles.U001?.status_text).toBe("In a meeting");
    expect(stack.syncs.sent).toEqual([]);
    expect(stack.calendarReads()).toBe(1);
  });

  it("stores the read as a sync would: a later check of the same feed finds nothing new", async () => {
    // Prepare
    const jar = await installAs("U001");
    await post(jar, "/settings/calendars/add", { url: stack.calendarUrl });
    const profile = (await stack.scan()).find((i) => i.SK === "PROFILE");
    const source = JSON.parse(String(profile?.sources))[0];
    // Act: the poll's next check of the calendar, at the same instant. Any later one may fall
    // past the daily refresh boundary, whose phase comes from the random source id, and such a
    // check reads the calendar in full by design (1 run in 1,440 failed for a minute's wait).
    const check = await stack.app.syncSource({
      team: "T0DEMO",
      user: "U001",
      sourceId: source.id,
      reason: "poll",
    });
    // Assess: the content hash and the check time were recorded with the first read.
    expect(source.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(source.etag).toBe(DEMO_ICS_ETAG);
    expect(source.syncedAt).toBe(stack.clock.now());
    expect(check).toEqual({ kind: "unchanged", reason: "same_content" });
  });

  it("still saves a calendar whose read cannot be applied at once, and queues its sync", async () => {
    // Prepare: a web function without the calendar engine, so the first read cannot expand.
    await stack.close();
    const { calendar: _none, ...others } = ALL_MODULES;
    stack = await startFrontDoor({ modules: others });
    const jar = await installAs("U001");
    // Act
    const added = await post(jar, "/settings/calendars/add", { url: stack.calendarUrl });
    // Assess: saved, the sync queued, and the page says when the events come.
    expect(added.headers.get("location")).toBe("/settings?notice=calendar_queued");
    expect(stack.syncs.sent).toEqual([
      expect.objectContaining({ team: "T0DEMO", user: "U001", reason: "manual" }),
    ]);
    const calendars = sectionText(await settingsHtml(jar), "calendars");
    // Not read yet: no name of its own, so its address as it may be shown.
    expect(calendars).toContain(`${new URL(stack.calendarUrl).origin}/…7f3a`);
    expect(calendars).toContain("Not read yet");
  });
});

describe("rules that cannot be saved (issue 28 item 7)", () => {
  /** The rules form as a person leaves it: two bad emoji among other changes. */
  const TYPED = {
    meeting_text: "Heads down in a call",
    meeting_emoji: ":telephone_receiver:",
    meeting_keywords: "sync\nstand-up",
    focus_text: "Deep work",
    focus_emoji: "headphones",
    focus_keywords: "focus",
    ooo_text: "Away",
    ooo_emoji: ":palm tree:",
    ooo_keywords: "vacation",
    show_titles: "on",
  };

  it("keeps what was typed, marks each bad field with its reason, and saves nothing", async () => {
    // Prepare
    const jar = await installAs("U001");
    const before = await stack.scan();
    // Act
    const refused = await post(jar, "/settings/rules", TYPED);
    const html = await refused.text();
    // Assess: the page itself answers (no redirect that would lose the input).
    expect(refused.status).toBe(422);
    const inputs = tags(html).filter((t) => t.name === "input" || t.name === "textarea");
    const field = (name: string) => inputs.find((t) => t.attrs.name === name);
    for (const name of ["meeting_text", "meeting_emoji", "focus_text", "ooo_text"]) {
      expect({ name, value: field(name)?.attrs.value }).toEqual({
        name,
        value: TYPED[name as keyof typeof TYPED],
      });
    }
    expect(field("focus_emoji")?.attrs.value).toBe("headphones");
    expect(field("ooo_emoji")?.attrs.value).toBe(":palm tree:");
    expect(html).toContain(">sync\nstand-up</textarea>");
    expect(field("show_titles")?.attrs).toHaveProperty("checked");
    expect(field("skip_tentative")?.attrs).not.toHaveProperty("checked");
    // Each bad field is marked, its reason beside it; no good field is.
    for (const name of ["focus_emoji", "ooo_emoji"]) {
      const attrs = field(name)?.attrs ?? {};
      expect({ name, invalid: attrs["aria-invalid"] }).toEqual({ name, invalid: "true" });
      const reasons = (attrs["aria-describedby"] ?? "").split(" ").map((id) => textById(html, id));
      expect(reasons.join(" ")).toContain("emoji must be in colon form, e.g. :palm_tree:");
    }
    const marked = inputs.filter((t) => t.attrs["aria-invalid"] !== undefined);
    expect(marked.map((t) => t.attrs.name).sort()).toEqual(["focus_emoji", "ooo_emoji"]);
    // Nothing was saved, and no calendar is read again for it.
    expect(await stack.scan()).toEqual(before);
    expect(stack.syncs.sent).toEqual([]);
  });
});

/** The text of the element with this id. */
function textById(html: string, id: string): string {
  const at = html.indexOf(`id="${id}"`);
  if (at < 0) return "";
  const open = html.lastIndexOf("<", at);
  const name = /^<([a-z0-9]+)/.exec(html.slice(open))?.[1] ?? "";
  const end = html.indexOf(`</${name}>`, at);
  return html
    .slice(html.indexOf(">", at) + 1, end)
    .replace(/<[^>]*>/g, "")
    .trim();
}
