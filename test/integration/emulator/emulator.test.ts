import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "#emulator/server";
import { ManualClock } from "#lib/core/clock";
import { ServiceClient } from "#lib/service/client";
import { ServiceError } from "#lib/service/errors";
import { ManifestClient } from "#lib/service/manifest-client";
import { conformanceWorkspace, startReceiver } from "../service/harness";

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const T0S = T0 / 1000;
const SECRET = "conformance-signing-secret";

const running: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function setup(opts: { answer?: (n: number) => number; retryDelaysMs?: number[] } = {}) {
  const clock = new ManualClock(T0);
  const receiver = await startReceiver(opts.answer);
  running.push(receiver);
  const workspace = conformanceWorkspace((ws) => {
    const main = ws.apps.find((a) => a.id === "A0MAIN");
    if (main) {
      main.manifest.settings = {
        event_subscriptions: { request_url: receiver.url, user_events: ["user_change"] },
      };
    }
  });
  const emu: RunningEmulator = await startEmulator({
    workspace,
    clock,
    expirySweepMs: 0,
    eventRetryDelaysMs: opts.retryDelaysMs ?? [0, 10, 20],
  });
  running.push(emu);
  const client = new ServiceClient({ baseUrl: emu.apiBase, clock, budget: false });
  const manifests = new ManifestClient({ baseUrl: emu.apiBase, clock });
  return { clock, receiver, emu, client, manifests };
}

type Envelope = {
  token: string;
  team_id: string;
  api_app_id: string;
  type: string;
  event_id: string;
  event_time: number;
  event: { type: string; user: { id: string; tz: string; profile: Record<string, unknown> } };
};

describe("emulator: status, events and expiry", () => {
  it("emits a signed user_change with the full profile to each subscribed app", async () => {
    // Prepare
    const { receiver, emu, client } = await setup();
    // Act
    const profile = await client.setStatus({
      token: "xoxp-member-0001",
      budgetUser: "U0MEMBER",
      status: { text: "Focus", emoji: ":headphones:", expiration: T0S + 3600 },
    });
    await emu.flushEvents();
    // Assess
    expect(receiver.received).toHaveLength(1);
    const [delivery] = receiver.received;
    const ts = String(delivery?.headers["x-svc-request-timestamp"]);
    const expected = `v0=${createHmac("sha256", SECRET).update(`v0:${ts}:${delivery?.body}`).digest("hex")}`;
    expect(delivery?.headers["x-svc-signature"]).toBe(expected);
    expect(ts).toBe(String(T0S));
    const envelope = JSON.parse(delivery?.body ?? "{}") as Envelope;
    expect(envelope).toMatchObject({
      team_id: "T0CONF",
      api_app_id: "A0MAIN",
      type: "event_callback",
      event_time: T0S,
      event: { type: "user_change", user: { id: "U0MEMBER", tz: "Europe/Berlin" } },
    });
    expect(envelope.event.user.profile).toEqual(profile);
  });

  it("clears text and emoji together when the expiration passes, and says so in a user_change", async () => {
    // Prepare
    const { clock, receiver, emu, client } = await setup();
    await client.setStatus({
      token: "xoxp-member-0001",
      budgetUser: "U0MEMBER",
      status: { text: "Meeting", emoji: ":calendar:", expiration: T0S + 600 },
    });
    // Act
    clock.advance(599_000);
    const early = await emu.sweepExpired();
    clock.advance(1_000);
    const cleared = await emu.sweepExpired();
    await emu.flushEvents();
    // Assess
    expect([early, cleared]).toEqual([0, 1]);
    const p = await client.getProfile({ token: "xoxp-member-0001" });
    expect([p.status_text, p.status_emoji, p.status_expiration]).toEqual(["", "", 0]);
    const last = JSON.parse(receiver.received.at(-1)?.body ?? "{}") as Envelope;
    expect(last.event.user.profile).toMatchObject({ status_text: "", status_emoji: "" });
    expect(receiver.received).toHaveLength(2);
  });

  it("retries a failed delivery with the retry number and reason headers", async () => {
    // Prepare
    const { receiver, emu, client } = await setup({ answer: (n) => (n < 3 ? 500 : 200) });
    // Act
    await client.setProfile({ token: "xoxp-member-0001", profile: { title: "Engineer" } });
    await emu.flushEvents();
    // Assess
    expect(receiver.received.map((r) => r.headers["x-svc-retry-num"])).toEqual([
      undefined,
      "1",
      "2",
    ]);
    expect(receiver.received[1]?.headers["x-svc-retry-reason"]).toBe("http_error");
    const ids = receiver.received.map((r) => (JSON.parse(r.body) as Envelope).event_id);
    expect(new Set(ids).size).toBe(1);
    expect(emu.state().deliveries[0]).toMatchObject({ outcome: "delivered", attempts: 3 });
  });

  it("drops and duplicates deliveries at the fault rates, reproducibly by seed", async () => {
    // Prepare
    const { receiver, emu, client } = await setup();
    emu.setFaults("duplicate_event=1");
    // Act
    await client.setProfile({ token: "xoxp-member-0001", profile: { title: "A" } });
    await emu.flushEvents();
    emu.setFaults("drop_event=1");
    await client.setProfile({ token: "xoxp-member-0001", profile: { title: "B" } });
    await emu.flushEvents();
    // Assess
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[0]?.body).toBe(receiver.received[1]?.body);
    expect(emu.state().deliveries.map((d) => d.outcome)).toEqual(["delivered", "dropped"]);
  });
});

describe("emulator: profile rules", () => {
  it("shows a text-only status with the default emoji and keeps an emoji-only status as set", async () => {
    // Prepare
    const { client } = await setup();
    const token = "xoxp-member-0001";
    // Act
    const textOnly = await client.setProfile({ token, profile: { status_text: "Lunch" } });
    await client.setProfile({ token, profile: { status_text: "", status_emoji: "" } });
    const emojiOnly = await client.setProfile({ token, profile: { status_emoji: ":x:" } });
    // Assess
    expect([textOnly.status_text, textOnly.status_emoji]).toEqual(["Lunch", ":speech_balloon:"]);
    expect([emojiOnly.status_text, emojiOnly.status_emoji]).toEqual(["", ":x:"]);
  });

  it("keeps the stored emoji when a set names only the text", async () => {
    // Prepare
    const { client } = await setup();
    const token = "xoxp-member-0001";
    await client.setProfile({
      token,
      profile: { status_text: "Busy", status_emoji: ":calendar:" },
    });
    // Act
    const profile = await client.setProfile({ token, profile: { status_text: "Lunch" } });
    // Assess
    expect([profile.status_text, profile.status_emoji]).toEqual(["Lunch", ":calendar:"]);
  });

  it.each([
    [{ status_text: "", status_emoji: ":x:" }, "an empty text with an emoji"],
    [{ status_text: "Lunch", status_emoji: "" }, "an empty emoji with a text"],
    [{ status_text: "" }, "a lone empty text while an emoji is stored"],
    [{ status_emoji: "" }, "a lone empty emoji while a text is stored"],
  ] as [Record<string, unknown>, string][])(
    "answers must_clear_both for %j (%s) and leaves the status alone",
    async (profile) => {
      // Prepare
      const { client, emu } = await setup();
      const token = "xoxp-member-0001";
      const unchecked = new ServiceClient({
        baseUrl: emu.apiBase,
        clock: new ManualClock(T0),
        budget: false,
        validate: false,
      });
      await client.setProfile({
        token,
        profile: { status_text: "Busy", status_emoji: ":calendar:" },
      });
      // Act
      const err = await unchecked.setProfile({ token, profile }).catch((e: unknown) => e);
      // Assess
      expect(err).toBeInstanceOf(ServiceError);
      expect((err as ServiceError).code).toBe("must_clear_both_status_text_and_status_emoji");
      expect(emu.state().profiles.U0MEMBER).toMatchObject({
        status_text: "Busy",
        status_emoji: ":calendar:",
      });
    },
  );

  it("accepts a lone empty field when the other one is empty already", async () => {
    // Prepare
    const { client } = await setup();
    const token = "xoxp-member-0001";
    // Act
    const profile = await client.setProfile({ token, profile: { status_text: "" } });
    // Assess
    expect([profile.status_text, profile.status_emoji]).toEqual(["", ""]);
  });

  it("keeps real_name and first/last name in sync both ways", async () => {
    // Prepare
    const { client } = await setup();
    const token = "xoxp-member-0001";
    // Act
    const a = await client.setProfile({ token, profile: { real_name: "Mia van Dijk" } });
    const b = await client.setProfile({ token, profile: { last_name: "Müller" } });
    const c = await client.setProfileField({ token, name: "real_name", value: "Mia" });
    // Assess
    expect([a.first_name, a.last_name]).toEqual(["Mia", "van Dijk"]);
    expect([b.real_name, b.real_name_normalized]).toEqual(["Mia Müller", "Mia Muller"]);
    expect([c.first_name, c.last_name]).toEqual(["Mia", ""]);
  });

  it("keeps start_date and the start-date custom field in sync both ways", async () => {
    // Prepare
    const { client } = await setup();
    const token = "xoxp-member-0001";
    // Act
    const a = await client.setProfile({ token, profile: { start_date: "2024-04-01" } });
    const b = await client.setProfile({
      token,
      profile: { fields: { Xf02START: { value: "2023-09-15" } } },
    });
    // Assess
    expect(a.fields.Xf02START?.value).toBe("2024-04-01");
    expect(b.start_date).toBe("2023-09-15");
  });

  it("records a pending email for old and new address, changing it only on confirmation", async () => {
    // Prepare
    const { emu, client } = await setup();
    // Act
    const p = await client.setProfile({
      token: "xoxp-admin-0001",
      user: "U0MEMBER",
      profile: { email: "mia.new@conf.example" },
    });
    const pending = emu.state().pendingEmails;
    const confirm = await fetch(`${emu.url}/_emulator/confirm-email`, {
      method: "POST",
      body: JSON.stringify({ user: "U0MEMBER" }),
    });
    const after = await client.getProfile({ token: "xoxp-member-0001" });
    // Assess
    expect(p.email).toBe("mia@conf.example");
    expect(pending).toMatchObject([
      { user: "U0MEMBER", sentTo: ["mia@conf.example", "mia.new@conf.example"] },
    ]);
    expect(confirm.status).toBe(200);
    expect(after.email).toBe("mia.new@conf.example");
    expect(emu.state().pendingEmails).toEqual([]);
  });

  it("sets a custom tags field through the single name/value form", async () => {
    // Prepare
    const { client } = await setup();
    // Act
    const p = await client.setProfileField({
      token: "xoxp-member-0001",
      name: "Xf04SKILLS",
      value: "go, rust",
      encoding: "form",
    });
    // Assess
    expect(p.fields.Xf04SKILLS?.value).toEqual(["go", "rust"]);
  });

  it("refuses image fields and a non-empty skype, and keeps skype empty", async () => {
    // Prepare
    const { client, emu } = await setup();
    const raw = new ServiceClient({
      baseUrl: emu.apiBase,
      clock: new ManualClock(T0),
      budget: false,
      validate: false,
    });
    // Act
    const image = raw.setProfile({ token: "xoxp-member-0001", profile: { image_24: "x" } });
    const skype = raw.setProfile({ token: "xoxp-member-0001", profile: { skype: "me" } });
    // Assess
    await expect(image).rejects.toMatchObject({ code: "invalid_arguments" });
    await expect(skype).rejects.toMatchObject({ code: "invalid_arguments" });
    expect((await client.getProfile({ token: "xoxp-member-0001" })).skype).toBe("");
  });
});

describe("emulator: manifest, introspection, paths, faults", () => {
  it("replaces the manifest and reports permissions_updated exactly when scopes change", async () => {
    // Prepare
    const { emu, manifests } = await setup();
    const base = {
      display_information: { name: "Statuspilot" },
      oauth_config: { scopes: { user: ["users.profile:read", "users.profile:write"] } },
    };
    const token = "xoxe-config-admin-0001";
    // Act
    const same = await manifests.updateManifest({ token, appId: "A0MAIN", manifest: base });
    const more = await manifests.updateManifest({
      token,
      appId: "A0MAIN",
      manifest: JSON.stringify({
        ...base,
        oauth_config: { scopes: { user: ["users.profile:write", "users.read"] } },
      }),
    });
    // Assess
    expect(same).toEqual({ appId: "A0MAIN", permissionsUpdated: false });
    expect(more.permissionsUpdated).toBe(true);
    const app = emu.state().apps.find((a) => a.id === "A0MAIN");
    expect(app?.manifest.settings).toBeUndefined();
  });

  it("reports permissions_updated when only the optional scopes change", async () => {
    // Prepare
    const { manifests } = await setup();
    const token = "xoxe-config-admin-0001";
    const scopes = (extra: Record<string, string[]>) => ({
      display_information: { name: "Statuspilot" },
      oauth_config: { scopes: { bot: ["chat:write"], user: ["users.profile:write"], ...extra } },
      features: { bot_user: { display_name: "statuspilot" } },
    });
    await manifests.updateManifest({ token, appId: "A0MAIN", manifest: scopes({}) });
    // Act
    const botOptional = await manifests.updateManifest({
      token,
      appId: "A0MAIN",
      manifest: scopes({ bot_optional: ["chat:write"] }),
    });
    const userOptional = await manifests.updateManifest({
      token,
      appId: "A0MAIN",
      manifest: scopes({ bot_optional: ["chat:write"], user_optional: ["users.profile:write"] }),
    });
    const unchanged = await manifests.updateManifest({
      token,
      appId: "A0MAIN",
      manifest: scopes({ user_optional: ["users.profile:write"], bot_optional: ["chat:write"] }),
    });
    // Assess
    expect(botOptional.permissionsUpdated).toBe(true);
    expect(userOptional.permissionsUpdated).toBe(true);
    expect(unchanged.permissionsUpdated).toBe(false);
  });

  it("refuses a loopback http request_url through apps.manifest.update: only workspace files are exempt", async () => {
    // Prepare
    const { manifests } = await setup();
    const manifest = {
      display_information: { name: "Statuspilot" },
      settings: {
        event_subscriptions: {
          request_url: "http://127.0.0.1:3000/service/events",
          user_events: ["user_change"],
        },
      },
    };
    // Act
    const err = await manifests
      .updateManifest({ token: "xoxe-config-admin-0001", appId: "A0MAIN", manifest })
      .catch((e: unknown) => e);
    // Assess
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).errors).toEqual([
      {
        message: expect.stringContaining("https"),
        pointer: "/settings/event_subscriptions/request_url",
      },
    ]);
  });

  it("serves users.profile.set at the alias path /api/users/profile.set", async () => {
    // Prepare
    const { emu } = await setup();
    // Act
    const res = await fetch(`${emu.url}/api/users/profile.set`, {
      method: "POST",
      headers: { authorization: "Bearer xoxp-member-0001", "content-type": "application/json" },
      body: JSON.stringify({ profile: { title: "Alias" } }),
    });
    // Assess
    expect(await res.json()).toMatchObject({ ok: true, profile: { title: "Alias" } });
  });

  it("logs every call with a redacted token, never the whole token", async () => {
    // Prepare
    const { emu, client } = await setup();
    await client.setProfile({ token: "xoxp-member-0001", profile: { title: "x" } });
    await client
      .setProfile({ token: "xoxp-member-0001", user: "U0ADMIN", profile: { title: "x" } })
      .catch(() => {});
    // Act
    const res = await fetch(`${emu.url}/_emulator/calls`);
    const text = await res.text();
    // Assess
    expect(text).not.toContain("xoxp-member-0001");
    const { calls } = JSON.parse(text) as { calls: unknown[] };
    expect(calls).toMatchObject([
      {
        method: "users.profile.set",
        token: "xoxp-m…",
        caller: "U0MEMBER",
        user: "U0MEMBER",
        outcome: "ok",
        at: T0,
      },
      { outcome: "not_admin", user: "U0ADMIN" },
    ]);
  });

  it("turns faults on and off at runtime through POST /_emulator/faults", async () => {
    // Prepare
    const { emu, client } = await setup();
    // Act
    const on = await fetch(`${emu.url}/_emulator/faults`, {
      method: "POST",
      body: JSON.stringify({ spec: "internal_error=1", seed: 7 }),
    });
    const failed = await client.getProfile({ token: "xoxp-member-0001" }).catch((e: unknown) => e);
    await fetch(`${emu.url}/_emulator/faults`, {
      method: "POST",
      body: JSON.stringify({ spec: "" }),
    });
    const ok = await client.getProfile({ token: "xoxp-member-0001" });
    const bad = await fetch(`${emu.url}/_emulator/faults`, {
      method: "POST",
      body: JSON.stringify({ spec: "melt=1" }),
    });
    // Assess
    expect(on.status).toBe(200);
    expect(failed).toBeInstanceOf(ServiceError);
    expect((failed as ServiceError).retryable).toBe(true);
    expect(ok.real_name).toBe("Mia Example");
    expect(bad.status).toBe(400);
  });

  it("holds the request on a timeout fault, so the client gives a retryable timeout", async () => {
    // Prepare
    const { emu } = await setup();
    emu.setFaults("timeout=1");
    const client = new ServiceClient({
      baseUrl: emu.apiBase,
      clock: new ManualClock(T0),
      budget: false,
      timeoutMs: 200,
    });
    // Act
    const err = await client.getProfile({ token: "xoxp-member-0001" }).catch((e: unknown) => e);
    // Assess
    expect(err).toMatchObject({ code: "timeout", retryable: true });
  });
});
