import { afterEach, describe, expect, it } from "vitest";
import {
  type EmulatorSnapshot,
  parseSnapshot,
  type RunningEmulator,
  startEmulator,
} from "#emulator/server";
import type { Workspace } from "#emulator/workspace";
import { ManualClock } from "#lib/core/clock";
import { oauthAppWorkspace } from "../service/harness";

// A snapshot carries the emulator's workspace state into a new process: what the platform
// keeps (tokens, consents, refresh tokens, profiles) is there after a restart as before it.

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const CLIENT_ID = "1234567890.0987654321";
const CLIENT_SECRET = "main-client-secret-0001";
const CALLBACK = "https://app.example/oauth/callback";
const SCOPES = "users.profile:write,users.profile:read,users:read";

type Json = Record<string, unknown>;

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

/** The conformance workspace with A0MAIN as a rotating-token OAuth app. */
const workspace = (): Workspace =>
  oauthAppWorkspace({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUrls: [CALLBACK],
    userScopes: SCOPES.split(","),
    rotation: true,
    displayName: "Statuspilot",
  });

async function start(snapshot?: EmulatorSnapshot): Promise<RunningEmulator> {
  const emu = await startEmulator({
    workspace: workspace(),
    clock: new ManualClock(T0),
    expirySweepMs: 0,
    ...(snapshot ? { snapshot } : {}),
  });
  running.push(emu);
  return emu;
}

async function call(emu: RunningEmulator, method: string, args: Json, token?: string) {
  const res = await fetch(`${emu.apiBase}/${method}`, {
    method: "POST",
    headers: {
      "content-type": "application/json; charset=utf-8",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(args),
  });
  return (await res.json()) as Json;
}

async function install(emu: RunningEmulator) {
  const qs = new URLSearchParams({
    client_id: CLIENT_ID,
    user_scope: SCOPES,
    redirect_uri: CALLBACK,
    as: "U0MEMBER",
  });
  const page = await fetch(`${emu.url}/oauth/v2/authorize?${qs}`, { redirect: "manual" });
  const code = new URL(page.headers.get("location") ?? "").searchParams.get("code") ?? "";
  const body = await call(emu, "oauth.v2.access", {
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    code,
    redirect_uri: CALLBACK,
  });
  expect(body.ok).toBe(true);
  return body.authed_user as { access_token: string; refresh_token: string };
}

/** The snapshot as a file would carry it: through JSON, then validated. */
function throughFile(emu: RunningEmulator): EmulatorSnapshot {
  const read = parseSnapshot(JSON.parse(JSON.stringify(emu.snapshot())), workspace());
  if (!read.ok) throw new Error(read.reason);
  return read.snapshot;
}

const refresh = (emu: RunningEmulator, refreshToken: string) =>
  call(emu, "oauth.v2.access", {
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    grant_type: "refresh_token",
    refresh_token: refreshToken,
  });

describe("emulator snapshots", () => {
  it("keep an OAuth consent: its token works, its refresh token renews once", async () => {
    // Prepare
    const before = await start();
    const { access_token, refresh_token } = await install(before);
    const set = await call(
      before,
      "users.profile.set",
      { profile: { status_text: "On leave" } },
      access_token,
    );
    expect(set.ok).toBe(true);
    const snapshot = throughFile(before);
    await before.close();
    // Act
    const after = await start(snapshot);
    // Assess
    expect(after.state().profiles.U0MEMBER?.status_text).toBe("On leave");
    expect((await call(after, "auth.test", {}, access_token)).ok).toBe(true);
    const renewed = await refresh(after, refresh_token);
    expect(renewed).toMatchObject({ ok: true, access_token: expect.stringMatching(/^xoxe\./) });
    expect(await refresh(after, refresh_token)).toEqual({
      ok: false,
      error: "invalid_refresh_token",
    });
  });

  it("keep a consent's tokens together: revoking one revokes the renewed one too", async () => {
    // Prepare: a consent with a first and a renewed token, carried over a restart
    const before = await start();
    const { access_token, refresh_token } = await install(before);
    const renewed = String((await refresh(before, refresh_token)).access_token);
    const snapshot = throughFile(before);
    await before.close();
    const after = await start(snapshot);
    // Act
    const revoked = await call(after, "auth.revoke", {}, access_token);
    // Assess
    expect(revoked).toMatchObject({ ok: true, revoked: true });
    expect(await call(after, "auth.test", {}, renewed)).toEqual({
      ok: false,
      error: "token_revoked",
    });
  });

  it("are refused, with the reason, when they do not fit the workspace", async () => {
    // Prepare
    const emu = await start();
    const json = JSON.parse(JSON.stringify(emu.snapshot())) as Json;
    const profiles = json.profiles as Json;
    // Act
    const otherTeam = parseSnapshot({ ...json, team: "T0OTHER" }, workspace());
    const strayUser = parseSnapshot(
      { ...json, profiles: { ...profiles, U0NOBODY: profiles.U0MEMBER } },
      workspace(),
    );
    const noCounters = parseSnapshot({ ...json, counters: undefined }, workspace());
    // Assess
    expect(otherTeam).toEqual({ ok: false, reason: expect.stringContaining("T0OTHER") });
    expect(strayUser).toEqual({ ok: false, reason: expect.stringContaining("U0NOBODY") });
    expect(noCounters).toEqual({ ok: false, reason: expect.stringContaining("/counters") });
    expect(parseSnapshot(json, workspace()).ok).toBe(true);
  });
});
