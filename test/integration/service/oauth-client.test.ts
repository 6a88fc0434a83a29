import { afterEach, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "#emulator/server";
import { ManualClock } from "#lib/core/clock";
import {
  authorizeUrl,
  OAuthClient,
  OAuthError,
  type OAuthFailureKind,
} from "#lib/service/oauth-client";
import { oauthAppWorkspace } from "./harness";

// The product's OAuth client against the emulator over real HTTP. Expected values come from the
// platform's documented OAuth v2 (as the emulator's README restates it): oauth.v2.access with
// codes and refresh tokens, auth.test, auth.revoke, users.info; 12-hour rotating tokens.

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const HOUR = 60 * 60_000;
const CLIENT_ID = "1234567890.0987654321";
const CLIENT_SECRET = "main-client-secret-0001";
const CALLBACK = "https://app.example/oauth/callback";
const USER_SCOPES = ["users.profile:read", "users.profile:write", "users:read"];

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function setup(opts: { rotation?: boolean } = {}) {
  const clock = new ManualClock(T0);
  const workspace = oauthAppWorkspace({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUrls: [CALLBACK],
    userScopes: USER_SCOPES,
    rotation: opts.rotation === true,
  });
  const emu = await startEmulator({ workspace, clock, expirySweepMs: 0 });
  running.push(emu);
  const client = (over: { clientId?: string; clientSecret?: string; fetch?: typeof fetch } = {}) =>
    new OAuthClient({
      baseUrl: emu.apiBase,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      clock,
      ...over,
    });
  return { clock, emu, client };
}

/** What a browser gets back from the consent step, approved at once for `user`. */
async function consent(emu: RunningEmulator, state: string, user = "U0MEMBER") {
  const url = new URL(
    authorizeUrl({
      endpoint: `${emu.url}/oauth/v2/authorize`,
      clientId: CLIENT_ID,
      userScopes: USER_SCOPES,
      botScopes: ["commands"],
      redirectUri: CALLBACK,
      state,
    }),
  );
  url.searchParams.set("as", user);
  const res = await fetch(url, { redirect: "manual" });
  expect(res.status).toBe(302);
  return new URL(res.headers.get("location") ?? "");
}

async function codeFor(emu: RunningEmulator, user = "U0MEMBER"): Promise<string> {
  return (await consent(emu, "s", user)).searchParams.get("code") ?? "";
}

async function failure(p: Promise<unknown>): Promise<{ code: string; kind: OAuthFailureKind }> {
  try {
    await p;
  } catch (error: unknown) {
    if (error instanceof OAuthError) return { code: error.code, kind: error.kind };
    throw error;
  }
  throw new Error("expected an OAuthError");
}

describe("OAuthClient", () => {
  it("builds an authorize URL the service accepts, and gets the state back with the code", async () => {
    // Prepare
    const { emu } = await setup();
    // Act
    const back = await consent(emu, "state-1");
    // Assess
    expect(`${back.origin}${back.pathname}`).toBe(CALLBACK);
    expect(back.searchParams.get("state")).toBe("state-1");
    expect(back.searchParams.get("code")).toBeTruthy();
  });

  it("exchanges a code for the person's token, which never expires without rotation", async () => {
    // Prepare
    const { emu, client } = await setup();
    const code = await codeFor(emu);
    // Act
    const grant = await client().exchangeCode({ code, redirectUri: CALLBACK });
    // Assess
    expect(grant).toEqual({
      appId: "A0MAIN",
      team: { id: "T0CONF", name: "Conformance" },
      user: "U0MEMBER",
      scopes: USER_SCOPES,
      accessToken: expect.stringMatching(/^xoxp-/),
    });
  });

  it("sends the client credentials by HTTP Basic only, never in the body", async () => {
    // Prepare
    const { emu, client } = await setup();
    const code = await codeFor(emu);
    const sent: { authorization: string | null; body: string }[] = [];
    const recording: typeof fetch = async (input, init) => {
      const headers = new Headers(init?.headers);
      const body = init?.body instanceof Uint8Array ? new TextDecoder().decode(init.body) : "";
      sent.push({ authorization: headers.get("authorization"), body });
      return fetch(input, init);
    };
    // Act
    await client({ fetch: recording }).exchangeCode({ code, redirectUri: CALLBACK });
    // Assess
    const basic = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64")}`;
    expect(sent).toHaveLength(1);
    expect(sent[0]?.authorization).toBe(basic);
    expect(sent[0]?.body).not.toContain(CLIENT_SECRET);
    expect(Object.fromEntries(new URLSearchParams(sent[0]?.body))).toEqual({
      code,
      redirect_uri: CALLBACK,
    });
  });

  it("with rotation, gets a refresh token and the expiry 12 hours on, and renews with it once", async () => {
    // Prepare
    const { emu, client, clock } = await setup({ rotation: true });
    const grant = await client().exchangeCode({ code: await codeFor(emu), redirectUri: CALLBACK });
    clock.advance(11 * HOUR);
    // Act
    const renewed = await client().refresh(grant.refreshToken ?? "");
    const again = await failure(client().refresh(grant.refreshToken ?? ""));
    const identity = await client().authTest(renewed.accessToken);
    // Assess
    expect(grant.refreshToken).toMatch(/^xoxe-1-/);
    expect(grant.expiresAt).toBe(T0 + 12 * HOUR);
    expect(renewed).toEqual({
      appId: "A0MAIN",
      team: { id: "T0CONF", name: "Conformance" },
      scopes: USER_SCOPES,
      accessToken: expect.stringMatching(/^xoxe\.xoxp-/),
      refreshToken: expect.stringMatching(/^xoxe-1-/),
      expiresAt: T0 + 11 * HOUR + 12 * HOUR,
    });
    expect(renewed.refreshToken).not.toBe(grant.refreshToken);
    expect(again).toEqual({ code: "invalid_refresh_token", kind: "reauthorize" });
    expect(identity).toMatchObject({ userId: "U0MEMBER", expiresAt: T0 + 23 * HOUR });
  });

  it("reports an expired rotating token as token_expired, to be reauthorised", async () => {
    // Prepare
    const { emu, client, clock } = await setup({ rotation: true });
    const grant = await client().exchangeCode({ code: await codeFor(emu), redirectUri: CALLBACK });
    // Act
    clock.advance(12 * HOUR);
    const result = await failure(client().authTest(grant.accessToken));
    // Assess
    expect(result).toEqual({ code: "token_expired", kind: "reauthorize" });
  });

  it("answers each documented error of the exchange with its code and what to do", async () => {
    // Prepare
    const { emu, client } = await setup();
    const code = await codeFor(emu);
    // Act
    const results = {
      unknownCode: await failure(
        client().exchangeCode({ code: "T0CONF.nope", redirectUri: CALLBACK }),
      ),
      otherRedirect: await failure(
        client().exchangeCode({ code, redirectUri: "https://app.example/elsewhere" }),
      ),
      unknownClient: await failure(
        client({ clientId: "nope" }).exchangeCode({ code, redirectUri: CALLBACK }),
      ),
      wrongSecret: await failure(
        client({ clientSecret: "wrong" }).exchangeCode({ code, redirectUri: CALLBACK }),
      ),
    };
    await client().exchangeCode({ code, redirectUri: CALLBACK });
    const spent = await failure(client().exchangeCode({ code, redirectUri: CALLBACK }));
    // Assess
    expect(results).toEqual({
      unknownCode: { code: "invalid_code", kind: "restart_install" },
      otherRedirect: { code: "bad_redirect_uri", kind: "misconfigured" },
      unknownClient: { code: "invalid_client_id", kind: "misconfigured" },
      wrongSecret: { code: "bad_client_secret", kind: "misconfigured" },
    });
    expect(spent).toEqual({ code: "invalid_code", kind: "restart_install" });
  });

  it("tells whose token it is, and a person's time zone", async () => {
    // Prepare
    const { emu, client } = await setup();
    const grant = await client().exchangeCode({ code: await codeFor(emu), redirectUri: CALLBACK });
    // Act
    const identity = await client().authTest(grant.accessToken);
    const me = await client().userInfo(grant.accessToken, grant.user);
    const other = await client().userInfo(grant.accessToken, "U0MEMBER2");
    const nobody = await failure(client().userInfo(grant.accessToken, "U0NOBODY"));
    // Assess: 3 March 2025 is winter time, Berlin UTC+1, New York UTC-5.
    expect(identity).toEqual({
      team: "Conformance",
      teamId: "T0CONF",
      user: "mia",
      userId: "U0MEMBER",
      url: expect.any(String),
    });
    expect(me).toMatchObject({ id: "U0MEMBER", tz: "Europe/Berlin", tzOffset: 3600 });
    expect(other).toMatchObject({
      id: "U0MEMBER2",
      teamId: "T0CONF",
      tz: "America/New_York",
      tzOffset: -18000,
      deleted: false,
      isBot: false,
    });
    expect(nobody).toEqual({ code: "user_not_found", kind: "other" });
  });

  it("revokes a token (a test revoke changes nothing), after which it answers token_revoked", async () => {
    // Prepare
    const { emu, client } = await setup();
    const grant = await client().exchangeCode({ code: await codeFor(emu), redirectUri: CALLBACK });
    // Act
    const dryRun = await client().revoke(grant.accessToken, { test: true });
    const stillWorks = await client().authTest(grant.accessToken);
    const revoked = await client().revoke(grant.accessToken);
    const after = await failure(client().authTest(grant.accessToken));
    // Assess
    expect(dryRun).toEqual({ revoked: false });
    expect(stillWorks.userId).toBe("U0MEMBER");
    expect(revoked).toEqual({ revoked: true });
    expect(after).toEqual({ code: "token_revoked", kind: "reauthorize" });
  });

  it("calls an unreachable service a retryable network error", async () => {
    // Prepare
    const { client } = await setup();
    const dead: typeof fetch = async () => {
      throw new TypeError("fetch failed");
    };
    // Act
    const result = await failure(client({ fetch: dead }).authTest("xoxp-any"));
    // Assess
    expect(result).toEqual({ code: "network_error", kind: "retry" });
  });
});
