import { afterEach, describe, expect, it } from "vitest";
import {
  DEMO_USERS,
  type RunningMicrosoftEmulator,
  startMicrosoftEmulator,
} from "#emulator/microsoft/server";
import { ManualClock } from "#lib/core/clock";

// The identity platform's v2 authorization code flow over real HTTP. Expectations restate the
// public documentation: a redirect with `code` and `state`, a token answer with `token_type`,
// `scope`, `expires_in`, `access_token` and (with offline_access) `refresh_token`, and
// `{error, error_description: "AADSTS…", error_codes}` on failure.

const T0 = Date.UTC(2026, 10, 24, 9, 0, 0);
const CLIENT = {
  clientId: "client-1",
  clientSecret: "secret-1",
  redirectUris: ["https://app.example/cb"],
};
const USER = DEMO_USERS[0]?.id ?? "";
const running: RunningMicrosoftEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function setup() {
  const clock = new ManualClock(T0);
  const emu = await startMicrosoftEmulator({ clock, clients: [CLIENT], expirySweepMs: 0 });
  running.push(emu);
  return { emu, clock };
}

function authorizeUrl(emu: RunningMicrosoftEmulator, extra: Record<string, string> = {}) {
  const u = new URL(emu.authUrl);
  const params = {
    client_id: CLIENT.clientId,
    response_type: "code",
    redirect_uri: "https://app.example/cb",
    response_mode: "query",
    scope: "offline_access Calendars.Read",
    state: "st-1",
    ...extra,
  };
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u;
}

async function codeFor(emu: RunningMicrosoftEmulator, extra: Record<string, string> = {}) {
  const res = await fetch(authorizeUrl(emu, { as: USER, ...extra }), { redirect: "manual" });
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get("location") ?? "");
  return { location, code: location.searchParams.get("code") ?? "" };
}

const tokenCall = (emu: RunningMicrosoftEmulator, form: Record<string, string>) =>
  fetch(emu.tokenUrl, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_id: CLIENT.clientId,
      client_secret: CLIENT.clientSecret,
      ...form,
    }),
  });

describe("Microsoft identity platform emulator", () => {
  it("shows a consent page, and the approval redirects with code and state", async () => {
    const { emu } = await setup();
    const page = await fetch(authorizeUrl(emu));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Calendars.Read");
    const { location, code } = await codeFor(emu);
    expect(`${location.origin}${location.pathname}`).toBe("https://app.example/cb");
    expect(location.searchParams.get("state")).toBe("st-1");
    expect(code).not.toBe("");
  });

  it("refuses an unregistered redirect URI without redirecting, and a cancel redirects access_denied", async () => {
    const { emu } = await setup();
    const bad = await fetch(authorizeUrl(emu, { redirect_uri: "https://evil.example/cb" }), {
      redirect: "manual",
    });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("AADSTS50011");
    const form = new URLSearchParams(authorizeUrl(emu).searchParams);
    form.set("as", USER);
    form.set("decision", "cancel");
    const cancel = await fetch(emu.authUrl, { method: "POST", body: form, redirect: "manual" });
    expect(cancel.status).toBe(302);
    expect(new URL(cancel.headers.get("location") ?? "").searchParams.get("error")).toBe(
      "access_denied",
    );
  });

  it("exchanges a code once for tokens; offline_access brings a refresh token that refreshes", async () => {
    const { emu } = await setup();
    const { code } = await codeFor(emu);
    const res = await tokenCall(emu, {
      grant_type: "authorization_code",
      code,
      redirect_uri: "https://app.example/cb",
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.token_type).toBe("Bearer");
    expect(body.scope).toBe("Calendars.Read");
    expect(body.expires_in).toBeGreaterThan(0);
    expect(typeof body.access_token).toBe("string");
    expect(typeof body.refresh_token).toBe("string");

    const again = await tokenCall(emu, {
      grant_type: "authorization_code",
      code,
      redirect_uri: "https://app.example/cb",
    });
    expect(again.status).toBe(400);
    const reused = (await again.json()) as Record<string, unknown>;
    expect(reused.error).toBe("invalid_grant");
    expect(reused.error_codes).toEqual([54005]);

    const refreshed = await tokenCall(emu, {
      grant_type: "refresh_token",
      refresh_token: String(body.refresh_token),
    });
    expect(refreshed.status).toBe(200);
    expect(((await refreshed.json()) as Record<string, unknown>).access_token).not.toBe(
      body.access_token,
    );
  });

  it("issues no refresh token without offline_access", async () => {
    const { emu } = await setup();
    const { code } = await codeFor(emu, { scope: "Calendars.Read" });
    const res = await tokenCall(emu, {
      grant_type: "authorization_code",
      code,
      redirect_uri: "https://app.example/cb",
    });
    expect((await res.json()) as Record<string, unknown>).not.toHaveProperty("refresh_token");
  });

  it("answers invalid_grant for an expired code and for a revoked refresh token", async () => {
    const { emu, clock } = await setup();
    const { code } = await codeFor(emu);
    clock.advance(10 * 60_000);
    const late = await tokenCall(emu, {
      grant_type: "authorization_code",
      code,
      redirect_uri: "https://app.example/cb",
    });
    expect(late.status).toBe(400);
    expect(((await late.json()) as Record<string, unknown>).error).toBe("invalid_grant");

    const fresh = await codeFor(emu);
    const tokens = (await (
      await tokenCall(emu, {
        grant_type: "authorization_code",
        code: fresh.code,
        redirect_uri: "https://app.example/cb",
      })
    ).json()) as Record<string, string>;
    await fetch(`${emu.url}/_control/users/${USER}/revoke`, { method: "POST", body: "{}" });
    const dead = await tokenCall(emu, {
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token ?? "",
    });
    expect(dead.status).toBe(400);
    const body = (await dead.json()) as Record<string, unknown>;
    expect(body.error).toBe("invalid_grant");
    expect(String(body.error_description)).toMatch(/^AADSTS\d+: /);
  });

  it("refuses a wrong client secret with 401 invalid_client", async () => {
    const { emu } = await setup();
    const res = await tokenCall(emu, {
      client_secret: "nope",
      grant_type: "refresh_token",
      refresh_token: "x",
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as Record<string, unknown>).error).toBe("invalid_client");
  });
});
