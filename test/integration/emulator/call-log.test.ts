import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator, type Workspace } from "#emulator/server";
import { ManualClock } from "#lib/core/clock";
import { conformanceWorkspace } from "../service/harness";

/** `GET /_emulator/calls`, read over HTTP as a test outside the process would. */
const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
/** A token the workspace issued to its app A0MAIN, as an install would. */
const APP_TOKEN = "xoxp-installed-by-main-0001";
const VERIFICATION = "main-verification-token-0001";

interface Call {
  method: string;
  token: string | null;
  app: string | null;
  caller: string | null;
  outcome: string;
  params: Record<string, unknown> | null;
}

let emu: RunningEmulator;
let workspace: Workspace;
const clock = new ManualClock(T0);

beforeAll(async () => {
  workspace = conformanceWorkspace((ws) => {
    ws.tokens.push({
      token: APP_TOKEN,
      type: "user",
      user: "U0MEMBER2",
      scopes: ["users.profile:write", "users.profile:read"],
      state: "active",
      app: "A0MAIN",
    });
    const main = ws.apps.find((a) => a.id === "A0MAIN");
    if (main) main.verification_token = VERIFICATION;
  });
  emu = await startEmulator({ workspace, clock, expirySweepMs: 0 });
});
afterAll(() => emu?.close());

const post = (method: string, body: string, headers: Record<string, string>) =>
  fetch(`${emu.apiBase}/${method}`, { method: "POST", headers, body }).then((r) => r.json());

async function callLogText(): Promise<string> {
  const res = await fetch(`${emu.url}/_emulator/calls`);
  expect(res.status).toBe(200);
  return res.text();
}

const callsOf = (text: string): Call[] => (JSON.parse(text) as { calls: Call[] }).calls;

describe("the emulator's call log", () => {
  it("records each request's parameters, its token redacted to six characters", async () => {
    // Act
    await post(
      "users.profile.set",
      JSON.stringify({ profile: { status_text: "Lunch", status_emoji: ":sandwich:" } }),
      { authorization: `Bearer ${APP_TOKEN}`, "content-type": "application/json" },
    );
    await post(
      "users.profile.set",
      new URLSearchParams({
        token: "xoxp-member-0001",
        profile: JSON.stringify({ title: "Engineer" }),
      }).toString(),
      { "content-type": "application/x-www-form-urlencoded" },
    );
    // Assess
    const [byApp, byPerson] = callsOf(await callLogText()).slice(-2);
    expect(byApp).toMatchObject({
      method: "users.profile.set",
      token: "xoxp-i…",
      app: "A0MAIN",
      caller: "U0MEMBER2",
      outcome: "ok",
      params: { profile: { status_text: "Lunch", status_emoji: ":sandwich:" } },
    });
    expect(byPerson).toMatchObject({
      token: "xoxp-m…",
      app: null,
      caller: "U0MEMBER",
      outcome: "ok",
      // The form's `profile` is recorded as it came: URL-decoded JSON text.
      params: { token: "xoxp-m…", profile: '{"title":"Engineer"}' },
    });
  });

  it("never holds a whole token or secret, wherever the request put it", async () => {
    // Prepare: every token and secret of the workspace, one unknown token, in every place
    const known = [
      ...workspace.tokens.map((t) => t.token),
      ...workspace.apps.map((a) => a.signing_secret),
      VERIFICATION,
    ];
    const unknown = "xoxp-nobody-knows-this-9999";
    const secret = "conformance-signing-secret";
    const json = { "content-type": "application/json" };
    const form = { "content-type": "application/x-www-form-urlencoded" };
    // Act
    await post(
      "users.profile.set",
      JSON.stringify({
        token: unknown,
        profile: {
          status_text: `mine is xoxb-bot-0001 and ${secret}`,
          fields: { Xf01TEAM: { value: VERIFICATION, alt: "xoxe-manager-0001" } },
        },
        client_secret: "hunter2-hunter2",
        signing_secret: secret,
      }),
      { authorization: "Bearer xoxp-admin-0001", ...json },
    );
    await post(
      "users.profile.set",
      new URLSearchParams({
        token: "xoxp-member-0001",
        profile: JSON.stringify({ status_text: "xoxw-workspace-0001", title: secret }),
        verification_token: VERIFICATION,
      }).toString(),
      form,
    );
    await post(
      "apps.manifest.update",
      JSON.stringify({
        app_id: "A0MAIN",
        manifest: JSON.stringify({ display_information: { name: `x ${secret}` } }),
      }),
      { authorization: "Bearer xoxe-config-admin-0001", ...json },
    );
    await post("users.profile.get", JSON.stringify({ token: "short" }), json);
    await fetch(`${emu.url}/_emulator/faults`, {
      method: "POST",
      body: JSON.stringify({ spec: "internal_error=1" }),
    });
    await post(
      "users.profile.set",
      JSON.stringify({ token: "xoxp-member-0001", profile: { status_text: secret } }),
      json,
    );
    await fetch(`${emu.url}/_emulator/faults`, { method: "POST", body: JSON.stringify({}) });
    // Assess
    const text = await callLogText();
    for (const value of [...known, unknown, "hunter2-hunter2", "short"]) {
      expect(text, value).not.toContain(value);
    }
    const calls = callsOf(text).slice(-5);
    expect(calls.map((c) => [c.method, c.outcome])).toEqual([
      ["users.profile.set", "ok"],
      ["users.profile.set", "ok"],
      ["apps.manifest.update", "ok"],
      ["users.profile.get", "invalid_auth"],
      // An injected fault answers before the method runs; the log still shows what came.
      ["users.profile.set", "internal_error"],
    ]);
    expect(calls[0]?.params).toMatchObject({
      token: "xoxp-n…",
      client_secret: "[redacted]",
      signing_secret: "[redacted]",
      profile: {
        status_text: "mine is xoxb-b… and [redacted]",
        fields: { Xf01TEAM: { value: "[redacted]", alt: "xoxe-m…" } },
      },
    });
    expect(calls[1]?.params).toMatchObject({
      token: "xoxp-m…",
      verification_token: "[redacted]",
      profile: '{"status_text":"xoxw-w…","title":"[redacted]"}',
    });
    expect(calls[3]?.params).toEqual({ token: "sh…" });
    expect(calls[4]).toMatchObject({ token: "xoxp-m…", params: { token: "xoxp-m…" } });
  });
  it("shows an OAuth code only as a prefix: it is a credential until exchanged", async () => {
    // Arrange
    const code = "oauth-code-0123456789abcdef";
    const form = { "content-type": "application/x-www-form-urlencoded" };
    // Act
    await post("oauth.v2.access", `client_id=1.2&client_secret=s3cr3t&code=${code}`, form);
    // Assert
    const text = await callLogText();
    expect(text).not.toContain(code);
    expect(callsOf(text).at(-1)?.params).toMatchObject({ code: "oauth-…" });
  });
});
