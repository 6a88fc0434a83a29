import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  CookieJar,
  csrfOf,
  type FrontDoorStack,
  installUser,
  startFrontDoor,
  visit,
} from "./support";

// The front door over plain HTTP, against the emulator's OAuth v2. What is expected comes from
// the rules: a signed single-use state, a session cookie that alone decides who acts,
// a CSRF token on every form, and a disconnect that revokes the token and deletes every item.

const TEAM = "T0DEMO";
let stack: FrontDoorStack;

beforeEach(async () => {
  stack = await startFrontDoor();
});
afterEach(async () => {
  await stack.close();
});

const installAs = (user: string, jar = new CookieJar()) => installUser(stack, user, jar);

async function settingsOf(jar: CookieJar): Promise<{ status: number; html: string }> {
  const res = await visit(jar, `${stack.web}/settings`);
  return { status: res.status, html: await res.text() };
}

/** Every item of the table that names the user (keys or attributes). */
async function itemsOf(user: string) {
  return (await stack.scan()).filter((item) => JSON.stringify(item).includes(user));
}

describe("the front door over HTTP", () => {
  it("takes a new user from /install to their first automatic status, with no admin API call", async () => {
    // Act: install, consent as U001, land on the settings page.
    const { authorize, callback, jar } = await installAs("U001");
    // Assess: the authorize URL asks for exactly the scopes, with the redirect URL.
    expect(authorize.pathname).toBe("/oauth/v2/authorize");
    expect(authorize.searchParams.get("user_scope")?.split(",").sort()).toEqual([
      "dnd:read",
      "dnd:write",
      "users.profile:read",
      "users.profile:write",
      "users:read",
    ]);
    expect(authorize.searchParams.get("scope")).toBe("chat:write,commands");
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${stack.web}/oauth/callback`);
    expect(callback.status).toBe(302);
    expect(callback.headers.get("location")).toBe("/settings");
    const cookie = callback.headers
      .getSetCookie()
      .find((c) => c.startsWith("statuspilot_session="));
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    const page = await settingsOf(jar);
    expect(page.status).toBe(200);
    expect(page.html).toContain("Europe/Berlin");
    // Act: add the calendar; the sync worker runs what was queued.
    const added = await visit(jar, `${stack.web}/settings/calendars/add`, {
      form: { csrf: csrfOf(page.html), url: stack.calendarUrl },
    });
    expect(added.status).toBe(303);
    expect(added.headers.get("location")).toBe("/settings?notice=calendar_added");
    await stack.drainSyncs();
    // Assess: the meeting showing now is the user's status at the service, set by Statuspilot.
    const profile = stack.emulator.state().profiles.U001;
    expect(profile?.status_text).toBe("In a meeting");
    const after = await settingsOf(jar);
    expect(after.html).toContain("In a meeting");
    expect(after.html).not.toContain("secret-calendar-7f3a");
    // By its own name (X-WR-CALNAME), its address shown redacted: scheme, host and the last 4
    // characters of the secret part.
    expect(after.html).toContain(">Family<");
    expect(after.html).toContain(`ICS feed, ${new URL(stack.calendarUrl).origin}/…7f3a`);
    expect(stack.emulator.calls().some((c) => c.method.startsWith("admin"))).toBe(false);
  });

  it("saves rules, schedules out-of-office in the user's zone, removes a calendar, pauses and resumes", async () => {
    // Prepare: a user with the demo calendar showing its meeting.
    const { jar } = await installAs("U001");
    const post = async (path: string, form: Record<string, string>) => {
      const page = await settingsOf(jar);
      return visit(jar, `${stack.web}${path}`, { form: { csrf: csrfOf(page.html), ...form } });
    };
    await post("/settings/calendars/add", { url: stack.calendarUrl });
    await stack.drainSyncs();
    // Act: new meeting text; the calendar is read again with it.
    const rules = await post("/settings/rules", {
      meeting_text: "Heads down in a call",
      meeting_emoji: ":telephone_receiver:",
      meeting_keywords: "",
      focus_text: "Focus time",
      focus_emoji: ":headphones:",
      focus_keywords: "focus",
      ooo_text: "Out of office",
      ooo_emoji: ":palm_tree:",
      ooo_keywords: "vacation",
    });
    await stack.drainSyncs();
    // Assess
    expect(rules.headers.get("location")).toBe("/settings?notice=rules_saved");
    expect(stack.emulator.state().profiles.U001?.status_text).toBe("Heads down in a call");
    // Act: out-of-office on 7 and 8 January, Berlin days.
    const ooo = await post("/settings/ooo/add", {
      first_day: "2026-01-07",
      last_day: "2026-01-08",
    });
    const bad = await post("/settings/ooo/add", {
      first_day: "2026-01-08",
      last_day: "2026-01-07",
    });
    // Assess: from Berlin midnight of the 7th (23:00 UTC the 6th) to Berlin midnight after the 8th.
    expect(ooo.headers.get("location")).toBe("/settings?notice=ooo_scheduled");
    expect(bad.headers.get("location")).toBe("/settings?notice=ooo_refused");
    const entries = (await stack.scan()).filter((i) => String(i.SK).startsWith("OOO#"));
    expect(entries).toHaveLength(1);
    const entry = JSON.stringify(entries[0]);
    expect(entry).toContain(String(Date.UTC(2026, 0, 6, 23)));
    expect(entry).toContain(String(Date.UTC(2026, 0, 8, 23)));
    // Act: pause, then resume.
    const paused = await post("/settings/pause", {});
    const pausedPage = await settingsOf(jar);
    const resumed = await post("/settings/resume", {});
    // Assess
    expect(paused.headers.get("location")).toBe("/settings?notice=paused");
    expect(pausedPage.html).toContain("Resume");
    expect(resumed.headers.get("location")).toBe("/settings?notice=resumed");
    // Act: remove the calendar (its id from the page's remove form).
    const page = await settingsOf(jar);
    const sourceId = /name="source"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*name="source"/.exec(
      page.html,
    );
    const removed = await post("/settings/calendars/remove", {
      source: sourceId?.[1] ?? sourceId?.[2] ?? "",
    });
    // Assess: no calendar, no timeline left.
    expect(removed.headers.get("location")).toBe("/settings?notice=calendar_removed");
    const left = (await stack.scan()).filter((i) => String(i.SK).startsWith("TIMELINE#"));
    expect(left).toEqual([]);
  });

  it("refuses a replayed state with a 400 page, and changes nothing", async () => {
    // Prepare: one full install; the same callback URL (code and state) sent again, from the
    // same browser (its binding cookie intact): only the state's single use can refuse it.
    const first = await installAs("U001");
    const before = await stack.scan();
    // Act
    const replay = await visit(first.beforeCallback, first.callbackUrl);
    // Assess
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain("already used");
    expect(replay.headers.getSetCookie().some((c) => c.startsWith("statuspilot_session="))).toBe(
      false,
    );
    expect(await stack.scan()).toEqual(before);
  });

  it("answers error=access_denied with the nothing-installed page, and creates no user", async () => {
    // Prepare
    const jar = new CookieJar();
    const install = await visit(jar, `${stack.web}/install`);
    const state = new URL(install.headers.get("location") ?? "").searchParams.get("state") ?? "";
    // Act
    const cancelled = await visit(
      jar,
      `${stack.web}/oauth/callback?error=access_denied&state=${encodeURIComponent(state)}`,
    );
    // Assess
    expect(cancelled.status).toBe(200);
    expect(await cancelled.text()).toContain("Nothing was installed");
    expect(await itemsOf("U001")).toEqual([]);
  });

  it("refuses a form without a CSRF token, or with a forged one, with 403, and changes nothing", async () => {
    // Prepare
    const { jar } = await installAs("U001");
    const page = await settingsOf(jar);
    const real = csrfOf(page.html);
    const forged = `${real.slice(0, -2)}${real.endsWith("AA") ? "BB" : "AA"}`;
    const before = await stack.scan();
    // Act
    const missing = await visit(jar, `${stack.web}/settings/pause`, { form: {} });
    const wrong = await visit(jar, `${stack.web}/settings/pause`, { form: { csrf: forged } });
    const disconnect = await visit(jar, `${stack.web}/settings/disconnect`, {
      form: { csrf: forged, confirm: "on" },
    });
    // Assess
    expect([missing.status, wrong.status, disconnect.status]).toEqual([403, 403, 403]);
    expect(await stack.scan()).toEqual(before);
    // The real token works: the refusals were about the token only.
    const paused = await visit(jar, `${stack.web}/settings/pause`, { form: { csrf: real } });
    expect(paused.status).toBe(303);
    expect(await stack.scan()).not.toEqual(before);
  });

  it("refuses a form another site sent, even with the right token, with 403 and changes nothing", async () => {
    // Prepare: a signed-in person with a real token (as if a hostile page had obtained it)
    const { jar } = await installAs("U001");
    const csrf = csrfOf((await settingsOf(jar)).html);
    const before = await stack.scan();
    const crossSite: Record<string, string>[] = [
      { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { origin: "null" },
      { origin: stack.web.replace("127.0.0.1", "localhost") },
      { referer: "https://evil.example/cat-pictures" },
    ];
    // Act
    const answers = [];
    for (const headers of crossSite) {
      answers.push(await visit(jar, `${stack.web}/settings/pause`, { form: { csrf }, headers }));
    }
    // Assess: each a 403 page that says why, and nothing changed
    for (const res of answers) {
      expect(res.status).toBe(403);
      const html = await res.text();
      expect(html).toContain("This form came from another site");
      expect(html).toContain("Nothing was changed.");
      expect(html).not.toContain("evil.example");
    }
    expect(await stack.scan()).toEqual(before);
    // From our own page (what a browser sends there), the same form works.
    const ours = await visit(jar, `${stack.web}/settings/pause`, {
      form: { csrf },
      headers: {
        origin: stack.web,
        "sec-fetch-site": "same-origin",
        referer: `${stack.web}/settings`,
      },
    });
    expect(ours.status).toBe(303);
  });

  it("serves its pages with a same-origin referrer policy, so its own forms carry a real Origin", async () => {
    // Act
    const { jar } = await installAs("U001");
    const res = await visit(jar, `${stack.web}/settings`);
    // Assess: under no-referrer a browser sends Origin: null with every form of the page
    expect(res.headers.get("referrer-policy")).toBe("same-origin");
  });

  it("lets only the session's user act: another user's form and token change nothing of theirs", async () => {
    // Prepare: Alice and Bob each installed; Bob's page gives Bob's CSRF token.
    const alice = await installAs("U001");
    const bob = await installAs("U002");
    const bobToken = csrfOf((await settingsOf(bob.jar)).html);
    const aliceBefore = await itemsOf("U001");
    // Act: Bob's token with Alice's cookie (and a form field naming Alice) is refused; Bob's
    // cookie with a form naming Alice acts for Bob only.
    const crossed = await visit(alice.jar, `${stack.web}/settings/pause`, {
      form: { csrf: bobToken },
    });
    const named = await visit(bob.jar, `${stack.web}/settings/pause`, {
      form: { csrf: bobToken, user: "U001", team: TEAM },
    });
    // Assess
    expect(crossed.status).toBe(403);
    expect(named.status).toBe(303);
    expect(await itemsOf("U001")).toEqual(aliceBefore);
    expect((await settingsOf(bob.jar)).html).toMatch(/Resume/);
    expect((await settingsOf(alice.jar)).html).not.toMatch(/Paused:/);
  });

  it("disconnects: revokes the token, deletes every item of the user, and ends every session", async () => {
    // Prepare: a user with a calendar, a timeline, a status and an out-of-office entry.
    const { jar } = await installAs("U001");
    const other = await installAs("U002");
    let page = await settingsOf(jar);
    await visit(jar, `${stack.web}/settings/calendars/add`, {
      form: { csrf: csrfOf(page.html), url: stack.calendarUrl },
    });
    await stack.drainSyncs();
    page = await settingsOf(jar);
    await visit(jar, `${stack.web}/settings/ooo/add`, {
      form: { csrf: csrfOf(page.html), first_day: "2026-01-07", last_day: "2026-01-08" },
    });
    const token = await stack.tokenOf(TEAM, "U001");
    expect(token).toBeDefined();
    expect((await itemsOf("U001")).length).toBeGreaterThanOrEqual(4);
    const stale = jar.copy();
    const otherBefore = await itemsOf("U002");
    page = await settingsOf(jar);
    // Act
    const done = await visit(jar, `${stack.web}/settings/disconnect`, {
      form: { csrf: csrfOf(page.html), confirm: "on" },
    });
    // Assess: the data is gone, the token dead, the old cookie worthless; Bob untouched.
    expect(done.status).toBe(200);
    expect(await itemsOf("U001")).toEqual([]);
    expect(await itemsOf("U002")).toEqual(otherBefore);
    const test = await fetch(`${stack.emulator.apiBase}/auth.test`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await test.json()).toMatchObject({ ok: false, error: "token_revoked" });
    const after = await visit(stale, `${stack.web}/settings`);
    expect(after.status).toBe(302);
    expect(after.headers.get("location")).toBe("/install");
    // A new install makes a new session epoch: the cookie from before still does not work.
    stack.clock.advance(60_000);
    await installAs("U001");
    const still = await visit(stale, `${stack.web}/settings`);
    expect(still.status).toBe(302);
    expect((await settingsOf(other.jar)).status).toBe(200);
  });

  it("signs out: ends this session only, refuses a replay of its cookie, and deletes nothing", async () => {
    // Prepare: the same person signed in in two browsers
    const first = await installAs("U001");
    const second = await installAs("U001");
    const page = await settingsOf(first.jar);
    expect(page.html).toContain('action="/settings/sign-out"');
    const stolen = first.jar.copy();
    const before = await itemsOf("U001");
    // Act
    const out = await visit(first.jar, `${stack.web}/settings/sign-out`, {
      form: { csrf: csrfOf(page.html) },
    });
    // Assess: the page says so and offers to sign in again; the cookie is cleared
    expect(out.status).toBe(200);
    const html = await out.text();
    expect(html).toContain("Signed out");
    expect(html).toContain("Nothing was deleted");
    expect(html).toMatch(/<a class="button" href="\/install">Sign in again<\/a>/);
    expect(out.headers.getSetCookie().join("\n")).toMatch(/statuspilot_session=; .*Max-Age=0/);
    expect(first.jar.header()).not.toContain("statuspilot_session");
    // A replayed copy of the cookie (and its CSRF token) no longer works, and changes nothing
    const replay = await visit(stolen, `${stack.web}/settings`);
    expect(replay.status).toBe(302);
    expect(replay.headers.get("location")).toBe("/install");
    const replayedForm = await visit(stolen, `${stack.web}/settings/pause`, {
      form: { csrf: csrfOf(page.html) },
    });
    expect(replayedForm.status).toBe(302);
    // Nothing of the person was deleted, and their other browser is still signed in
    expect(await itemsOf("U001")).toEqual(before);
    expect((await settingsOf(second.jar)).status).toBe(200);
    // Signing in again makes a new session that works
    const again = await installAs("U001", first.jar);
    expect(again.callback.status).toBe(302);
    expect((await settingsOf(first.jar)).status).toBe(200);
  });

  it("refuses a sign-out without this session's CSRF token, signing nobody out", async () => {
    // Prepare
    const { jar } = await installAs("U001");
    // Act
    const forged = await visit(jar, `${stack.web}/settings/sign-out`, { form: { csrf: "x" } });
    // Assess
    expect(forged.status).toBe(403);
    expect((await settingsOf(jar)).status).toBe(200);
  });

  it("sends a visitor without a session, or with a forged one, to /install", async () => {
    const none = await visit(new CookieJar(), `${stack.web}/settings`);
    expect(none.status).toBe(302);
    expect(none.headers.get("location")).toBe("/install");
    const forged = await fetch(`${stack.web}/settings`, {
      redirect: "manual",
      headers: { cookie: `statuspilot_session=1.eyJ4IjoxfQ.${"A".repeat(43)}` },
    });
    expect(forged.status).toBe(302);
    expect(forged.headers.get("location")).toBe("/install");
  });
});
