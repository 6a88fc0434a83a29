import { afterEach, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "#emulator/server";
import { ManualClock } from "#lib/core/clock";
import { authorizeUrl, OAuthClient } from "#lib/service/oauth-client";
import { appOf, conformanceWorkspace, startReceiver } from "../service/harness";

// The bot token of oauth.v2.access, after the platform's OAuth v2 documentation: when the
// authorize URL asks for bot scopes (`scope=`), the answer carries the bot token at the top
// level (access_token xoxb-…, token_type "bot", scope, bot_user_id, app_id, team) beside
// `authed_user`, the installing person's user token.

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const CLIENT_ID = "1234567890.0987654321";
const CLIENT_SECRET = "main-client-secret-0001";
const CALLBACK = "https://app.example/oauth/callback";
const USER_SCOPES = ["users.profile:write", "users.profile:read", "users:read"];
const BOT_SCOPES = ["chat:write", "commands"];

type Json = Record<string, unknown>;

/** The answer of an install without bot scopes, as before the bot token. */
const USER_ONLY = {
  ok: true,
  app_id: "A0MAIN",
  authed_user: {
    id: "U0MEMBER",
    scope: USER_SCOPES.join(","),
    access_token: expect.stringMatching(/^xoxp-/),
    token_type: "user",
  },
  team: { id: "T0CONF", name: "Conformance" },
  enterprise: null,
  is_enterprise_install: false,
};

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function setup(opts: { botScopes?: string[]; rotation?: boolean } = {}) {
  const clock = new ManualClock(T0);
  const receiver = await startReceiver();
  running.push(receiver);
  const workspace = conformanceWorkspace((ws) => {
    const main = appOf(ws);
    main.client_id = CLIENT_ID;
    main.client_secret = CLIENT_SECRET;
    main.manifest = {
      display_information: { name: "Statuspilot" },
      features: { bot_user: { display_name: "statuspilot" } },
      oauth_config: {
        redirect_urls: [CALLBACK],
        scopes: {
          user: USER_SCOPES,
          ...(opts.botScopes === undefined ? {} : { bot: opts.botScopes }),
        },
      },
      settings: {
        token_rotation_enabled: opts.rotation === true,
        event_subscriptions: {
          request_url: receiver.url,
          bot_events: ["tokens_revoked", "app_uninstalled"],
        },
      },
    };
  });
  const emu = await startEmulator({ workspace, clock, expirySweepMs: 0, eventRetryDelaysMs: [0] });
  running.push(emu);
  return { clock, emu, receiver };
}

async function call(emu: RunningEmulator, method: string, args: Json, token?: string) {
  const res = await fetch(`${emu.apiBase}/${method}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(args),
  });
  return (await res.json()) as Json;
}

/** The product's own authorize URL (lib/service/oauth-client.ts), approved at once for `user`. */
async function authorize(
  emu: RunningEmulator,
  scopes: { user: readonly string[]; bot?: readonly string[] },
  user = "U0MEMBER",
) {
  const url = new URL(
    authorizeUrl({
      endpoint: `${emu.url}/oauth/v2/authorize`,
      clientId: CLIENT_ID,
      userScopes: scopes.user,
      ...(scopes.bot === undefined ? {} : { botScopes: scopes.bot }),
      redirectUri: CALLBACK,
      state: "s",
    }),
  );
  url.searchParams.set("as", user);
  const res = await fetch(url, { redirect: "manual" });
  return {
    status: res.status,
    location: new URL(res.headers.get("location") ?? `${emu.url}/`),
    html: await res.text(),
  };
}

async function install(
  emu: RunningEmulator,
  scopes: { user: readonly string[]; bot?: readonly string[] },
  user = "U0MEMBER",
) {
  const page = await authorize(emu, scopes, user);
  const code = page.location.searchParams.get("code");
  if (!code) throw new Error(`no code: ${page.status} ${page.html}`);
  return call(emu, "oauth.v2.access", {
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    code,
    redirect_uri: CALLBACK,
  });
}

describe("oauth.v2.access: the bot token", () => {
  it("answers the bot token at the top level beside the person's user token, both working", async () => {
    // Prepare
    const { emu } = await setup({ botScopes: BOT_SCOPES });
    // Act
    const body = await install(emu, { user: USER_SCOPES, bot: BOT_SCOPES });
    const bot = String(body.access_token);
    const person = String((body.authed_user as Json).access_token);
    const who = await call(emu, "auth.test", {}, bot);
    const dm = await call(emu, "chat.postMessage", { channel: "U0MEMBER", text: "hello" }, bot);
    const status = await call(emu, "users.profile.get", {}, person);
    // Assess
    expect(body).toEqual({
      ...USER_ONLY,
      access_token: expect.stringMatching(/^xoxb-/),
      token_type: "bot",
      scope: "chat:write,commands",
      bot_user_id: expect.stringMatching(/^U[A-Z0-9]+$/),
    });
    expect(who).toMatchObject({ ok: true, user_id: body.bot_user_id });
    expect(dm).toMatchObject({ ok: true, message: { user: body.bot_user_id } });
    expect(status.ok).toBe(true);
    expect(await call(emu, "users.profile.get", {}, bot)).toMatchObject({
      ok: false,
      error: "missing_scope",
    });
  });

  it("keeps the product's client working: it reads the person's token from the same answer", async () => {
    // Prepare
    const { emu, clock } = await setup({ botScopes: BOT_SCOPES });
    const page = await authorize(emu, { user: USER_SCOPES, bot: ["commands"] });
    const client = new OAuthClient({
      baseUrl: emu.apiBase,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      clock,
    });
    // Act
    const grant = await client.exchangeCode({
      code: page.location.searchParams.get("code") ?? "",
      redirectUri: CALLBACK,
    });
    // Assess
    expect(grant).toMatchObject({
      appId: "A0MAIN",
      user: "U0MEMBER",
      scopes: USER_SCOPES,
      accessToken: expect.stringMatching(/^xoxp-/),
    });
  });

  it("answers as before when no bot scope is asked for, or the manifest declares none", async () => {
    // Prepare
    const declared = await setup({ botScopes: BOT_SCOPES });
    const undeclared = await setup();
    // Act
    const userOnly = await install(declared.emu, { user: USER_SCOPES });
    const ignored = await install(undeclared.emu, { user: USER_SCOPES, bot: ["commands"] });
    // Assess
    expect(userOnly).toEqual(USER_ONLY);
    expect(ignored).toEqual(USER_ONLY);
  });

  it("refuses a bot scope the manifest does not declare, and installs a bot alone", async () => {
    // Prepare
    const { emu } = await setup({ botScopes: ["commands"] });
    // Act
    const refused = await authorize(emu, { user: USER_SCOPES, bot: ["commands", "chat:write"] });
    const botOnly = await install(emu, { user: [], bot: ["commands"] });
    const nothing = await authorize(emu, { user: [], bot: [] });
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.html).toContain("invalid_scope");
    expect(refused.html).toContain("chat:write");
    expect(botOnly).toMatchObject({
      ok: true,
      token_type: "bot",
      scope: "commands",
      authed_user: { id: "U0MEMBER" },
    });
    expect(botOnly.authed_user).toEqual({ id: "U0MEMBER" });
    expect(nothing.status).toBe(400);
  });

  it("keeps one bot token across installs, adding the scopes asked for", async () => {
    // Prepare
    const { emu } = await setup({ botScopes: BOT_SCOPES });
    // Act
    const first = await install(emu, { user: USER_SCOPES, bot: ["commands"] });
    const second = await install(emu, { user: USER_SCOPES, bot: ["chat:write"] }, "U0MEMBER2");
    // Assess
    expect(second.access_token).toBe(first.access_token);
    expect(second.bot_user_id).toBe(first.bot_user_id);
    expect(String(second.scope).split(",").sort()).toEqual(["chat:write", "commands"]);
  });

  it("rotates the bot token with token rotation on, and refreshes it as a bot token", async () => {
    // Prepare
    const { emu, clock } = await setup({ botScopes: BOT_SCOPES, rotation: true });
    const body = await install(emu, { user: USER_SCOPES, bot: BOT_SCOPES });
    // Act
    clock.advance(43_200_000);
    const expired = await call(
      emu,
      "chat.postMessage",
      { channel: "U0MEMBER", text: "x" },
      String(body.access_token),
    );
    const renewed = await call(emu, "oauth.v2.access", {
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      grant_type: "refresh_token",
      refresh_token: String(body.refresh_token),
    });
    const works = await call(
      emu,
      "chat.postMessage",
      { channel: "U0MEMBER", text: "x" },
      String(renewed.access_token),
    );
    // Assess
    expect(body).toMatchObject({
      access_token: expect.stringMatching(/^xoxe\.xoxb-1-/),
      refresh_token: expect.stringMatching(/^xoxe-1-/),
      expires_in: 43200,
      token_type: "bot",
      authed_user: {
        access_token: expect.stringMatching(/^xoxe\.xoxp-1-/),
        refresh_token: expect.stringMatching(/^xoxe-1-/),
      },
    });
    expect(expired).toEqual({ ok: false, error: "token_expired" });
    expect(renewed).toMatchObject({
      ok: true,
      token_type: "bot",
      bot_user_id: body.bot_user_id,
      scope: "chat:write,commands",
      access_token: expect.stringMatching(/^xoxe\.xoxb-1-/),
      expires_in: 43200,
    });
    expect(works.ok).toBe(true);
  });

  it("revoking the bot token tells the app under tokens.bot, and the person's token goes on", async () => {
    // Prepare
    const { emu, receiver } = await setup({ botScopes: BOT_SCOPES });
    const body = await install(emu, { user: USER_SCOPES, bot: BOT_SCOPES });
    // Act
    const revoked = await call(emu, "auth.revoke", {}, String(body.access_token));
    await emu.flushEvents();
    const person = await call(
      emu,
      "auth.test",
      {},
      String((body.authed_user as Json).access_token),
    );
    // Assess
    expect(revoked).toEqual({ ok: true, revoked: true });
    expect(person.ok).toBe(true);
    const events = receiver.received.map((d) => (JSON.parse(d.body) as { event: Json }).event);
    expect(events).toEqual([
      { type: "tokens_revoked", tokens: { oauth: [], bot: [body.bot_user_id] } },
    ]);
  });
});
