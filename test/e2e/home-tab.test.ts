import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { renderIcs } from "#lib/local/demo-feed";
import { CookieJar, visit } from "../integration/web/support";
import {
  buttonsOf,
  emulatorState,
  installAs,
  messagesTo,
  openHome,
  personDoes,
  postInteraction,
  postSettings,
  postSignedJson,
  runQueued,
  settingsHtml,
  statuspilot,
  textOf,
} from "./home-support";
import {
  advance,
  type E2e,
  event,
  nowOf,
  profileOf,
  settle,
  startE2e,
  TEAM,
  tokensRevokedEnvelope,
} from "./support";

/**
 * The Home tab over the local stack and the emulator, all over HTTP: a person opens the tab
 * (`app_home_opened`), clicks its buttons (`block_actions` at /service/interactive), follows its
 * one-time "Open settings" link, and presses Sync now there and on the settings page.
 */

const S = 1000;
const MIN = 60 * S;
let e: E2e;
let jar: CookieJar;

beforeAll(async () => {
  e = await startE2e({ U001: { tz: "Europe/Berlin", events: [] } }, { installed: false });
});
afterAll(() => e?.close());

const putFeed = async (user: string, body: string): Promise<void> => {
  const res = await fetch(e.feedUrl(user), { method: "PUT", body });
  if (res.status !== 204) throw new Error(`feed PUT answered ${res.status}`);
};

const homeOf = async (user: string) => (await emulatorState(e)).home_views[user];

/**
 * Turns the minute tick off or on (`/_local/schedules`): U001's calendar sets no status, so a
 * day of the poll's reads passes without 1,440 ticks that find nothing due.
 */
const setTicks = async (enabled: boolean): Promise<void> => {
  const res = await fetch(`${e.url}/_local/schedules`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ enabled, rules: ["tick"] }),
  });
  if (res.status !== 200) throw new Error(`schedules answered ${res.status}`);
};

/** U001's calendar address goes away, and a day of the poll's reads fails (the tick off). */
async function breakCalendarForADay(): Promise<void> {
  const gone = await fetch(e.feedUrl("U001"), { method: "DELETE" });
  expect(gone.status).toBe(204);
  await setTicks(false);
  for (let quarter = 0; quarter < 4; quarter++) await advance(e, 6 * 60 * MIN);
  await runQueued(e);
}

/** The address is back; the next reads are good (the tick stays off until `setTicks(true)`). */
async function mendCalendar(): Promise<void> {
  await putFeed("U001", renderIcs([], await nowOf(e)));
  await advance(e, 7 * 60 * MIN);
  await runQueued(e);
}

describe("the Home tab", () => {
  it("shows a person who has not installed the app its Add to link, and nothing else", async () => {
    // Act
    const view = await openHome(e, "U001");
    // Assess
    const buttons = buttonsOf(view);
    expect(buttons.map((b) => b.action_id)).toEqual(["install"]);
    expect(buttons[0]?.text.text).toMatch(/^Add to/);
    expect(buttons[0]?.url).toBe(`${e.url}/install`);
  });

  it("after an install, shows the connection, each calendar with its health, and the buttons", async () => {
    // Prepare: install, add the calendar on the settings page.
    jar = await installAs(e, "U001");
    const added = await postSettings(e, jar, "/settings/calendars/add", {
      url: e.feedUrl("U001"),
    });
    expect(added).toBe("/settings?notice=calendar_added");
    await runQueued(e);
    // Act
    const view = await openHome(e, "U001");
    // Assess
    const text = textOf(view);
    expect(text).toContain("Connected");
    expect(text).toContain("Statuspilot demo");
    expect(text).toMatch(/Last good read [^"]+ · Next read/);
    expect(text).toMatch(/Now: /);
    expect(text).toContain("Do Not Disturb: off");
    expect(buttonsOf(view).map((b) => b.action_id)).toEqual(["pause", "sync_now", "open_settings"]);
  });

  it("Pause and Resume, clicked, change the mode and the tab follows", async () => {
    // Act
    const paused = await personDoes(e, "click", { user: "U001", action_id: "pause" });
    await runQueued(e);
    // Assess
    expect(paused.body).toMatchObject({ ok: true, delivered: true, status: 200 });
    const view = await homeOf("U001");
    expect(buttonsOf(view).map((b) => b.action_id)).toContain("resume");
    expect(textOf(view)).toContain("Paused");
    // Act
    await personDoes(e, "click", { user: "U001", action_id: "resume" });
    await runQueued(e);
    // Assess
    expect(buttonsOf(await homeOf("U001")).map((b) => b.action_id)).toContain("pause");
  });

  it("Open settings signs its person in once, within 5 minutes, and never again", async () => {
    // Prepare
    const link = buttonsOf(await openHome(e, "U001")).find((b) => b.action_id === "open_settings");
    expect(link?.url).toMatch(/\/settings\/open\?link=/);
    const browser = new CookieJar();
    // Act
    const first = await visit(browser, link?.url ?? "");
    const settings = await settingsHtml(e, browser);
    const replayed = await visit(new CookieJar(), link?.url ?? "");
    // Assess
    expect(first.status).toBe(302);
    expect(first.headers.get("location")).toBe("/settings");
    expect(settings.status).toBe(200);
    expect(settings.html).toContain("Last good read");
    expect(replayed.status).toBe(400);
    const replayedHtml = await replayed.text();
    expect(replayedHtml).toContain("already used");
    expect(replayedHtml).not.toContain("Last good read");
    // Act: the click on the link asks for a fresh one; it is kept past its 5 minutes.
    await personDoes(e, "click", { user: "U001", action_id: "open_settings" });
    await runQueued(e);
    const fresh = buttonsOf(await homeOf("U001")).find((b) => b.action_id === "open_settings");
    expect(fresh?.url).not.toBe(link?.url);
    await advance(e, 5 * MIN);
    const late = await visit(new CookieJar(), fresh?.url ?? "");
    // Assess
    expect(late.status).toBe(400);
    expect(await late.text()).toContain("more than 5 minutes old");
  });

  it("Sync now answers within 3 s, the status follows within 10 s, and a second press reads nothing", async () => {
    // Prepare: a meeting from now, in the feed; nothing has read it yet.
    const now = await nowOf(e);
    expect((await profileOf(e, "U001")).status_text).toBe("");
    await putFeed("U001", renderIcs([event("sync", "Planning", now, now + 60 * MIN)], now));
    // Act
    const pressed = await personDoes(e, "click", { user: "U001", action_id: "sync_now" });
    await settle(e);
    await advance(e, 10 * S);
    // Assess
    expect(pressed.body).toMatchObject({ delivered: true, status: 200 });
    expect(pressed.tookMs).toBeLessThan(3 * S);
    expect((await profileOf(e, "U001")).status_text).toBe("In a meeting");
    // Act: the feed changes again; a second press within the minute, on the settings page.
    const later = await nowOf(e);
    await putFeed("U001", renderIcs([event("away", "Vacation", later, later + 60 * MIN)], later));
    const again = await postSettings(e, jar, "/settings/sync");
    await settle(e);
    await advance(e, 10 * S);
    // Assess
    expect(again).toBe("/settings?notice=sync_recent");
    expect((await profileOf(e, "U001")).status_text).toBe("In a meeting");
    // Act: a minute on, the settings page's Sync now reads again.
    await advance(e, MIN);
    const third = await postSettings(e, jar, "/settings/sync");
    await settle(e);
    await advance(e, 10 * S);
    // Assess
    expect(third).toBe("/settings?notice=sync_queued");
    expect((await profileOf(e, "U001")).status_text).toMatch(/^Out of office/);
  });
});

describe("/statuspilot sync", () => {
  it("reads every calendar now, answered within 3 s, and not again within the minute", async () => {
    // Prepare: past the last press's minute; a new event in the feed.
    await advance(e, MIN);
    const now = await nowOf(e);
    await putFeed("U001", renderIcs([event("focus", "Deep work", now, now + 60 * MIN)], now));
    // Act
    const first = await statuspilot(e, "sync", "U001");
    await settle(e);
    await advance(e, 10 * S);
    const second = await statuspilot(e, "sync", "U001");
    // Assess
    expect(first.status).toBe(200);
    expect(first.tookMs).toBeLessThan(3 * S);
    expect(first.text).toContain("Reading your calendar now");
    expect((await profileOf(e, "U001")).status_text).toMatch(/^Focus time/);
    expect(second.text).toContain("less than a minute ago");
  });
});

describe("the interactive route", () => {
  const payload = {
    type: "block_actions",
    user: { id: "U001", team_id: TEAM },
    team: { id: TEAM },
    trigger_id: "1.2.3",
    actions: [{ action_id: "sync_now", type: "button" }],
  };

  it("takes a click signed with the app's secret within the replay window", async () => {
    // Act
    const res = await postInteraction(e, payload);
    // Assess
    expect(res.status).toBe(200);
  });

  it("refuses a wrong signature, another secret, a stale or a future timestamp: 401, nothing done", async () => {
    // Prepare
    const now = Math.floor((await nowOf(e)) / S);
    // Act
    const answers = [
      await postInteraction(e, payload, { signature: "v0=00" }),
      await postInteraction(e, payload, { secret: "not-the-signing-secret" }),
      await postInteraction(e, payload, { at: now - 6 * 60 }),
      await postInteraction(e, payload, { at: now + 6 * 60 }),
    ];
    // Assess
    expect(answers.map((r) => r.status)).toEqual([401, 401, 401, 401]);
  });

  it("refuses an unsigned body before reading it", async () => {
    // Act
    const res = await fetch(`${e.url}/service/interactive`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "nothing=here",
    });
    // Assess: unsigned is refused before the body is read.
    expect(res.status).toBe(401);
  });
});

describe("a calendar that breaks", () => {
  it("is told once in a day of failed reads, shown on the tab, and not told again when it clears", async () => {
    // Prepare
    const before = (await messagesTo(e, "U001")).length;
    // Act: the calendar's address goes away; a day of the poll's reads, every one failing.
    await breakCalendarForADay();
    // The person looks at the tab twice meanwhile: each look runs what they are told again.
    await openHome(e, "U001");
    await openHome(e, "U001");
    // Assess: one message, saying what broke, with the way to fix it.
    const told = (await messagesTo(e, "U001")).slice(before);
    expect(told).toHaveLength(1);
    expect(told[0]?.text).toContain("Statuspilot demo");
    expect(textOf({ blocks: told[0]?.blocks })).toMatch(/settings/i);
    const broken = textOf(await homeOf("U001"));
    expect(broken).toMatch(/no longer there|gone|404/i);
    // Act: the address is back; the next reads are good.
    await mendCalendar();
    // Assess: the tab shows it healthy; no second message.
    expect(textOf(await homeOf("U001"))).not.toMatch(/no longer there|gone|404/i);
    expect((await messagesTo(e, "U001")).slice(before)).toHaveLength(1);
    await setTicks(true);
  }, 240_000);
});

describe("a person who turned the messages off", () => {
  it("is not messaged when a calendar breaks, and still sees it on the tab", async () => {
    // Prepare: messages off on the settings page.
    const before = (await messagesTo(e, "U001")).length;
    expect(await postSettings(e, jar, "/settings/messages", { messages: "off" })).toContain(
      "messages_off",
    );
    // Act: a day of failed reads, as above, and a look at the tab.
    await breakCalendarForADay();
    await openHome(e, "U001");
    // Assess: no message; the tab says what broke.
    expect((await messagesTo(e, "U001")).slice(before)).toEqual([]);
    expect(textOf(await homeOf("U001"))).toMatch(/no longer there|gone|404/i);
    // The calendar back and the messages on again, for what follows.
    await mendCalendar();
    await setTicks(true);
    expect(await postSettings(e, jar, "/settings/messages", { messages: "on" })).toContain(
      "messages_on",
    );
  }, 240_000);
});

describe("a token that is revoked", () => {
  it("is told once, with the way to reconnect, and the tab offers Reconnect", async () => {
    // Prepare
    const before = (await messagesTo(e, "U001")).length;
    const envelope = tokensRevokedEnvelope("U001", "Ev0REVOKED1", await nowOf(e));
    // Act: the service's event, delivered twice (at least once), then a look at the tab.
    for (let i = 0; i < 2; i++) {
      const res = await postSignedJson(e, "/service/events", envelope);
      expect(res.status).toBe(200);
      await runQueued(e);
    }
    const view = await openHome(e, "U001");
    // Assess
    const told = (await messagesTo(e, "U001")).slice(before);
    expect(told).toHaveLength(1);
    expect(told[0]?.text).toMatch(/revoked|no longer/i);
    expect(textOf({ blocks: told[0]?.blocks })).toContain(`${e.url}/install`);
    expect(buttonsOf(view).find((b) => b.action_id === "reconnect")?.url).toBe(`${e.url}/install`);
  });
});
