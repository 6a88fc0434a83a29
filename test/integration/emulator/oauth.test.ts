import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "#emulator/server";
import { loadWorkspace, type Workspace } from "#emulator/workspace";
import { ManualClock } from "#lib/core/clock";
import { fixture, oauthAppWorkspace, repoRoot, startReceiver } from "../service/harness";

// The OAuth v2 extension, over real HTTP. Expected shapes and codes come from the platform's
// public documentation (oauth.v2.access, auth.test, auth.revoke, users.info, tokens_revoked,
// app_uninstalled, token rotation), not from the emulator's code.

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const SIGNING_SECRET = "conformance-signing-secret";
const CLIENT_ID = "1234567890.0987654321";
const CLIENT_SECRET = "main-client-secret-0001";
const CALLBACK = "https://app.example/oauth/callback";
const OTHER_CALLBACK = "https://app.example/oauth/other";
const SCOPES = "users.profile:write,users.profile:read,users:read";

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function setup(opts: { rotation?: boolean; appName?: string } = {}) {
  const clock = new ManualClock(T0);
  const receiver = await startReceiver();
  running.push(receiver);
  let ranged: Workspace["apps"][number] | undefined;
  const workspace = oauthAppWorkspace(
    {
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      redirectUrls: [CALLBACK, OTHER_CALLBACK],
      userScopes: SCOPES.split(","),
      rotation: opts.rotation === true,
      displayName: opts.appName ?? "Statuspilot",
      settings: {
        event_subscriptions: {
          request_url: receiver.url,
          bot_events: ["tokens_revoked", "app_uninstalled"],
        },
      },
    },
    (ws) => {
      ranged = ws.apps.find((a) => a.id === "A0RANGED");
    },
  );
  const emu: RunningEmulator = await startEmulator({
    workspace,
    clock,
    expirySweepMs: 0,
    eventRetryDelaysMs: [0, 10, 20],
  });
  running.push(emu);
  if (!ranged) throw new Error("the conformance workspace has no A0RANGED");
  return { clock, receiver, emu, other: ranged };
}

type Json = Record<string, unknown>;

async function call(
  emu: RunningEmulator,
  method: string,
  args: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Json> {
  const res = await fetch(`${emu.apiBase}/${method}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: new URLSearchParams(args).toString(),
  });
  return (await res.json()) as Json;
}

const withToken = (token: string) => ({ authorization: `Bearer ${token}` });

interface PageAnswer {
  status: number;
  location: URL | undefined;
  html: string;
}

async function answer(res: Response): Promise<PageAnswer> {
  const location = res.headers.get("location");
  return {
    status: res.status,
    location: location === null ? undefined : new URL(location),
    html: await res.text(),
  };
}

async function authorize(emu: RunningEmulator, params: Record<string, string>) {
  const qs = new URLSearchParams({ client_id: CLIENT_ID, user_scope: SCOPES, ...params });
  return answer(await fetch(`${emu.url}/oauth/v2/authorize?${qs}`, { redirect: "manual" }));
}

async function postConsent(emu: RunningEmulator, form: Record<string, string>) {
  return answer(
    await fetch(`${emu.url}/oauth/v2/authorize`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString(),
      redirect: "manual",
    }),
  );
}

const unescapeHtml = (s: string) =>
  s
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");

/** The consent form as a browser would read it: hidden fields and the people to choose from. */
function readForm(html: string) {
  const hidden = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [
      unescapeHtml(m[1] ?? ""),
      unescapeHtml(m[2] ?? ""),
    ]),
  );
  const people = [...html.matchAll(/<option value="([^"]*)">/g)].map((m) =>
    unescapeHtml(m[1] ?? ""),
  );
  const action = /<form method="post" action="([^"]*)">/.exec(html)?.[1];
  return { hidden, people, action };
}

/** Approves at once (`as=`) and returns the code the redirect carries. */
async function codeFor(emu: RunningEmulator, user = "U0MEMBER", redirectUri = CALLBACK) {
  const page = await authorize(emu, { redirect_uri: redirectUri, state: "s-1", as: user });
  expect(page.status).toBe(302);
  const code = page.location?.searchParams.get("code");
  if (!code) throw new Error(`no code in ${page.location}`);
  return code;
}

const exchange = (emu: RunningEmulator, code: string, extra: Record<string, string> = {}) =>
  call(emu, "oauth.v2.access", {
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    code,
    redirect_uri: CALLBACK,
    ...extra,
  });

async function install(emu: RunningEmulator, user = "U0MEMBER") {
  const body = await exchange(emu, await codeFor(emu, user));
  expect(body.ok).toBe(true);
  return body as { authed_user: { access_token: string; refresh_token?: string } } & Json;
}

function verified(delivery: { headers: Record<string, unknown>; body: string }): Json {
  const ts = String(delivery.headers["x-svc-request-timestamp"]);
  const expected = `v0=${createHmac("sha256", SIGNING_SECRET).update(`v0:${ts}:${delivery.body}`).digest("hex")}`;
  expect(delivery.headers["x-svc-signature"]).toBe(expected);
  return JSON.parse(delivery.body) as Json;
}

describe("emulator OAuth v2: consent and code exchange", () => {
  it("installs through the consent page, and the token acts as that person", async () => {
    // Prepare
    const { emu } = await setup();
    const page = await authorize(emu, { redirect_uri: CALLBACK, state: "xyz", scope: "" });
    expect(page.status).toBe(200);
    const form = readForm(page.html);
    expect(form.action).toBe("/oauth/v2/authorize");
    expect(form.people).toContain("U0MEMBER");
    expect(form.people).not.toContain("U0BOT");
    // Act
    const approved = await postConsent(emu, { ...form.hidden, as: "U0MEMBER", decision: "allow" });
    const code = approved.location?.searchParams.get("code") ?? "";
    const body = await exchange(emu, code);
    // Assess
    expect(approved.status).toBe(302);
    expect(`${approved.location?.origin}${approved.location?.pathname}`).toBe(CALLBACK);
    expect(approved.location?.searchParams.get("state")).toBe("xyz");
    expect(body).toEqual({
      ok: true,
      app_id: "A0MAIN",
      authed_user: {
        id: "U0MEMBER",
        scope: SCOPES,
        access_token: expect.stringMatching(/^xoxp-/),
        token_type: "user",
      },
      team: { id: "T0CONF", name: "Conformance" },
      enterprise: null,
      is_enterprise_install: false,
    });
    const token = (body.authed_user as { access_token: string }).access_token;
    const set = await call(
      emu,
      "users.profile.set",
      { profile: JSON.stringify({ status_text: "Focus", status_emoji: ":headphones:" }) },
      withToken(token),
    );
    expect(set.ok).toBe(true);
    expect(emu.state().profiles.U0MEMBER?.status_text).toBe("Focus");
    const get = await call(emu, "users.profile.get", {}, withToken(token));
    expect(get).toMatchObject({ ok: true, profile: { status_emoji: ":headphones:" } });
    expect(await call(emu, "auth.test", {}, withToken(token))).toMatchObject({
      ok: true,
      team: "Conformance",
      team_id: "T0CONF",
      user_id: "U0MEMBER",
    });
  });

  it("tells a person's time zone through users.info, without the email unless granted", async () => {
    // Prepare
    const { emu } = await setup();
    const { authed_user } = await install(emu);
    // Act
    const info = await call(
      emu,
      "users.info",
      { user: "U0MEMBER2" },
      withToken(authed_user.access_token),
    );
    const unknown = await call(
      emu,
      "users.info",
      { user: "U0NOBODY" },
      withToken(authed_user.access_token),
    );
    const unscoped = await call(
      emu,
      "users.info",
      { user: "U0MEMBER2" },
      withToken("xoxp-member-0001"),
    );
    // Assess: 3 March 2025 is winter time in New York, UTC-5.
    expect(info).toMatchObject({
      ok: true,
      user: {
        id: "U0MEMBER2",
        team_id: "T0CONF",
        tz: "America/New_York",
        tz_label: "Eastern Standard Time",
        tz_offset: -18000,
        deleted: false,
        is_bot: false,
      },
    });
    expect((info.user as { profile: Json }).profile).not.toHaveProperty("email");
    expect(unknown).toEqual({ ok: false, error: "user_not_found" });
    expect(unscoped).toMatchObject({ ok: false, error: "missing_scope", needed: "users:read" });
  });

  it("answers each documented error of oauth.v2.access, and a failed attempt spends no code", async () => {
    // Prepare
    const { emu, other } = await setup();
    const code = await codeFor(emu);
    const cases: [string, Record<string, string>, string][] = [
      ["unknown client", { client_id: "nope" }, "invalid_client_id"],
      ["wrong secret", { client_secret: "wrong" }, "bad_client_secret"],
      ["unknown code", { code: "T0CONF.not-a-code" }, "invalid_code"],
      [
        "another app's credentials",
        { client_id: other.client_id, client_secret: other.client_secret },
        "invalid_code",
      ],
      ["another redirect_uri", { redirect_uri: OTHER_CALLBACK }, "bad_redirect_uri"],
      ["an unknown grant type", { grant_type: "password" }, "invalid_grant_type"],
    ];
    for (const [what, args, error] of cases) {
      // Act
      const body = await exchange(emu, code, args);
      // Assess
      expect({ what, body }).toEqual({ what, body: { ok: false, error } });
    }
    const noClient = await call(emu, "oauth.v2.access", { code, redirect_uri: CALLBACK });
    expect(noClient).toEqual({ ok: false, error: "invalid_client_id" });
    const { redirect_uri: _omitted, ...withoutRedirect } = {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      code,
      redirect_uri: CALLBACK,
    };
    expect(await call(emu, "oauth.v2.access", withoutRedirect)).toEqual({
      ok: false,
      error: "bad_redirect_uri",
    });
    expect((await exchange(emu, code)).ok).toBe(true);
  });

  it("accepts a code once", async () => {
    // Prepare
    const { emu } = await setup();
    const code = await codeFor(emu);
    // Act
    const first = await exchange(emu, code);
    const second = await exchange(emu, code);
    // Assess
    expect(first.ok).toBe(true);
    expect(second).toEqual({ ok: false, error: "invalid_code" });
  });

  it("expires a code 10 minutes after consent, by the emulator's clock", async () => {
    // Prepare
    const { emu, clock } = await setup();
    const early = await codeFor(emu);
    const late = await codeFor(emu);
    // Act
    clock.advance(10 * 60_000 - 1000);
    const inTime = await exchange(emu, early);
    clock.advance(1000);
    const tooLate = await exchange(emu, late);
    // Assess
    expect(inTime.ok).toBe(true);
    expect(tooLate).toEqual({ ok: false, error: "invalid_code" });
  });

  it("takes the client credentials by HTTP Basic, which win over form fields", async () => {
    // Prepare
    const { emu } = await setup();
    const basic = (id: string, secret: string) => ({
      authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`,
    });
    const wrong = await codeFor(emu);
    const right = await codeFor(emu);
    // Act
    const refused = await call(
      emu,
      "oauth.v2.access",
      { code: wrong, redirect_uri: CALLBACK, client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
      basic(CLIENT_ID, "not-the-secret"),
    );
    const accepted = await call(
      emu,
      "oauth.v2.access",
      { code: right, redirect_uri: CALLBACK },
      basic(CLIENT_ID, CLIENT_SECRET),
    );
    // Assess
    expect(refused).toEqual({ ok: false, error: "bad_client_secret" });
    expect(accepted).toMatchObject({ ok: true, authed_user: { id: "U0MEMBER" } });
  });

  it("sends access_denied with the state when the person cancels on the consent page", async () => {
    // Prepare
    const { emu } = await setup();
    const page = await authorize(emu, { redirect_uri: OTHER_CALLBACK, state: "keep me" });
    const { hidden } = readForm(page.html);
    // Act
    const cancelled = await postConsent(emu, { ...hidden, as: "U0MEMBER", decision: "cancel" });
    // Assess
    expect(cancelled.status).toBe(302);
    expect(`${cancelled.location?.origin}${cancelled.location?.pathname}`).toBe(OTHER_CALLBACK);
    expect(Object.fromEntries(cancelled.location?.searchParams ?? [])).toEqual({
      error: "access_denied",
      state: "keep me",
    });
  });

  it("refuses a redirect_uri the manifest does not list, with a page and no redirect", async () => {
    // Prepare
    const { emu } = await setup();
    // Act
    const foreign = await authorize(emu, {
      redirect_uri: "https://evil.example/cb?<script>",
      as: "U0MEMBER",
    });
    const defaulted = await authorize(emu, { as: "U0MEMBER", state: "d" });
    // Assess
    expect(foreign.status).toBe(400);
    expect(foreign.location).toBeUndefined();
    expect(foreign.html).toContain("bad_redirect_uri");
    expect(foreign.html).not.toContain("<script>");
    expect(defaulted.status).toBe(302);
    expect(`${defaulted.location?.origin}${defaulted.location?.pathname}`).toBe(CALLBACK);
    // Named at the exchange though not at the authorize step, it must be where the code went.
    const code = defaulted.location?.searchParams.get("code") ?? "";
    expect(await exchange(emu, code, { redirect_uri: OTHER_CALLBACK })).toEqual({
      ok: false,
      error: "bad_redirect_uri",
    });
    expect((await exchange(emu, code, { redirect_uri: CALLBACK })).ok).toBe(true);
  });

  it("escapes the app name and the state on the consent page, and returns the state intact", async () => {
    // Prepare
    const { emu } = await setup({ appName: "<img src=x onerror=alert(1)>" });
    const state = `"><script>alert("x")</script>&'`;
    // Act
    const page = await authorize(emu, { redirect_uri: CALLBACK, state });
    const approved = await postConsent(emu, {
      ...readForm(page.html).hidden,
      as: "U0MEMBER",
      decision: "allow",
    });
    // Assess
    expect(page.html).not.toMatch(/<img|<script/);
    expect(page.html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(approved.location?.searchParams.get("state")).toBe(state);
  });
});

describe("emulator OAuth v2: revocation and uninstall", () => {
  it("auth.revoke ends the token (token_revoked) and the app hears tokens_revoked, signed", async () => {
    // Prepare
    const { emu, receiver } = await setup();
    const token = (await install(emu)).authed_user.access_token;
    await install(emu, "U0MEMBER2");
    // Act
    const dryRun = await call(emu, "auth.revoke", { test: "1" }, withToken(token));
    const stillWorks = await call(emu, "auth.test", {}, withToken(token));
    const revoked = await call(emu, "auth.revoke", {}, withToken(token));
    const afterGet = await call(emu, "users.profile.get", {}, withToken(token));
    const afterTest = await call(emu, "auth.test", {}, withToken(token));
    await emu.flushEvents();
    // Assess
    expect(dryRun).toEqual({ ok: true, revoked: false });
    expect(stillWorks.ok).toBe(true);
    expect(revoked).toEqual({ ok: true, revoked: true });
    expect(afterGet).toEqual({ ok: false, error: "token_revoked" });
    expect(afterTest).toEqual({ ok: false, error: "token_revoked" });
    // U0MEMBER2 still holds a token, so the app stays installed.
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    if (!delivery) throw new Error("no delivery");
    expect(verified(delivery)).toMatchObject({
      team_id: "T0CONF",
      api_app_id: "A0MAIN",
      type: "event_callback",
      event_id: expect.stringMatching(/^Ev/),
      event_time: T0 / 1000,
      event: { type: "tokens_revoked", tokens: { oauth: ["U0MEMBER"], bot: [] } },
    });
  });

  it("sends app_uninstalled once the app's final token is revoked", async () => {
    // Prepare
    const { emu, receiver } = await setup();
    const token = (await install(emu)).authed_user.access_token;
    // Act
    await call(emu, "auth.revoke", {}, withToken(token));
    await emu.flushEvents();
    // Assess
    const events = receiver.received.map((d) => (verified(d).event as { type: string }).type);
    expect(events.sort()).toEqual(["app_uninstalled", "tokens_revoked"]);
  });

  it("uninstalls an app from the control endpoint: every token revoked, both events sent", async () => {
    // Prepare
    const { emu, receiver } = await setup();
    const first = (await install(emu)).authed_user.access_token;
    const second = (await install(emu, "U0MEMBER2")).authed_user.access_token;
    // Act
    const res = await fetch(`${emu.url}/_emulator/uninstall`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ app: "A0MAIN" }),
    });
    await emu.flushEvents();
    // Assess
    expect(await res.json()).toEqual({ ok: true, revoked: 2 });
    for (const token of [first, second]) {
      expect(await call(emu, "auth.test", {}, withToken(token))).toEqual({
        ok: false,
        error: "token_revoked",
      });
    }
    const events = receiver.received.map(
      (d) => verified(d).event as { type: string; tokens?: Json },
    );
    expect(events).toContainEqual({
      type: "tokens_revoked",
      tokens: { oauth: ["U0MEMBER", "U0MEMBER2"], bot: [] },
    });
    expect(events).toContainEqual({ type: "app_uninstalled" });
  });
});

describe("emulator OAuth v2: token rotation", () => {
  it("issues a 12-hour token with a refresh token, and refreshing renews it once", async () => {
    // Prepare
    const { emu, clock, other } = await setup({ rotation: true });
    const installed = await install(emu);
    const { access_token: first, refresh_token: refresh } = installed.authed_user;
    // Act
    const fresh = await call(emu, "auth.test", {}, withToken(first));
    clock.advance(43_200_000 - 1000);
    const lastSecond = await call(emu, "users.profile.get", {}, withToken(first));
    clock.advance(1000);
    const expired = await call(emu, "users.profile.get", {}, withToken(first));
    const refreshArgs = {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      grant_type: "refresh_token",
      refresh_token: refresh ?? "",
    };
    const foreign = await call(emu, "oauth.v2.access", {
      ...refreshArgs,
      client_id: other.client_id,
      client_secret: other.client_secret,
    });
    const renewed = await call(emu, "oauth.v2.access", refreshArgs);
    const reused = await call(emu, "oauth.v2.access", refreshArgs);
    const second = String(renewed.access_token);
    const works = await call(emu, "users.profile.get", {}, withToken(second));
    clock.advance(43_200_000);
    const secondExpired = await call(emu, "auth.test", {}, withToken(second));
    const again = await call(emu, "oauth.v2.access", {
      ...refreshArgs,
      refresh_token: String(renewed.refresh_token),
    });
    // Assess
    expect(installed.authed_user).toEqual({
      id: "U0MEMBER",
      scope: SCOPES,
      access_token: expect.stringMatching(/^xoxe\.xoxp-/),
      refresh_token: expect.stringMatching(/^xoxe-/),
      expires_in: 43200,
      token_type: "user",
    });
    expect(fresh).toMatchObject({ ok: true, user_id: "U0MEMBER", expires_in: 43200 });
    expect(lastSecond.ok).toBe(true);
    expect(expired).toEqual({ ok: false, error: "token_expired" });
    expect(foreign).toEqual({ ok: false, error: "invalid_refresh_token" });
    expect(renewed).toMatchObject({
      ok: true,
      app_id: "A0MAIN",
      token_type: "user",
      scope: SCOPES,
      access_token: expect.stringMatching(/^xoxe\.xoxp-/),
      refresh_token: expect.stringMatching(/^xoxe-/),
      expires_in: 43200,
      team: { id: "T0CONF" },
    });
    expect(second).not.toBe(first);
    expect(renewed.refresh_token).not.toBe(refresh);
    expect(reused).toEqual({ ok: false, error: "invalid_refresh_token" });
    expect(works.ok).toBe(true);
    expect(secondExpired).toEqual({ ok: false, error: "token_expired" });
    expect(again.ok).toBe(true);
  });

  it("issues tokens that never expire and no refresh token when rotation is off", async () => {
    // Prepare
    const { emu, clock } = await setup({ rotation: false });
    const { authed_user } = await install(emu);
    // Act
    clock.advance(30 * 86_400_000);
    const later = await call(emu, "auth.test", {}, withToken(authed_user.access_token));
    // Assess
    expect(authed_user).not.toHaveProperty("refresh_token");
    expect(later).toMatchObject({ ok: true, user_id: "U0MEMBER" });
    expect(later).not.toHaveProperty("expires_in");
  });
});

describe("emulator OAuth v2: workspace credentials", () => {
  it("gives an app of an older workspace file stable, distinct credentials", () => {
    // Prepare / Act
    const a = loadWorkspace(fixture("conformance.json"));
    const b = loadWorkspace(fixture("conformance.json"));
    const demo = loadWorkspace(`${repoRoot}/emulator/demo-workspace.json`);
    // Assess
    const creds = (ws: Workspace) => ws.apps.map((app) => [app.client_id, app.client_secret]);
    expect(creds(a)).toEqual(creds(b));
    const all = creds(a).flat();
    expect(new Set(all).size).toBe(all.length);
    for (const app of a.apps) expect(app.client_secret).not.toContain(app.signing_secret);
    expect(demo.apps[0]?.client_id).toBe("T0DEMO.A0STATUSPILOT");
  });
});
