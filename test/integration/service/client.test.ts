import { WebClient } from "@slack/web-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "#emulator/server";
import { ManualClock } from "#lib/core/clock";
import { TokenBudget } from "#lib/service/budget";
import { ServiceClient } from "#lib/service/client";
import { BudgetExceededError, ServiceError, ServiceValidationError } from "#lib/service/errors";
import { ManifestClient } from "#lib/service/manifest-client";
import { conformanceWorkspace } from "./harness";

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const T0S = T0 / 1000;

describe("ServiceClient against the emulator", () => {
  const clock = new ManualClock(T0);
  let emu: RunningEmulator;

  beforeAll(async () => {
    emu = await startEmulator({ workspace: conformanceWorkspace(), clock, expirySweepMs: 0 });
  });
  afterAll(async () => {
    await emu.close();
  });

  const client = (opts: Partial<ConstructorParameters<typeof ServiceClient>[0]> = {}) =>
    new ServiceClient({ baseUrl: `${emu.apiBase}/`, clock, ...opts });
  const manifests = () => new ManifestClient({ baseUrl: `${emu.apiBase}/`, clock });

  it("sets a status with expiration and returns the full profile", async () => {
    // Act
    const p = await client().setStatus({
      token: "xoxp-member-0001",
      budgetUser: "U0MEMBER",
      status: { text: "Lunch", emoji: ":hamburger:", expiration: T0S + 1800 },
    });
    // Assess
    expect(p).toMatchObject({
      status_text: "Lunch",
      status_emoji: ":hamburger:",
      status_expiration: T0S + 1800,
    });
    expect(p.real_name).toBe("Mia Example");
  });

  it("clears text, emoji and expiration together for an empty status", async () => {
    // Act
    const p = await client().setStatus({
      token: "xoxp-member-0001",
      budgetUser: "U0MEMBER",
      status: { text: "", emoji: "", expiration: 0 },
    });
    // Assess
    expect([p.status_text, p.status_emoji, p.status_expiration]).toEqual(["", "", 0]);
  });

  it("sends the form encoding with profile as URL-encoded JSON and user as its sibling", async () => {
    // Act
    const p = await client().setProfile({
      token: "xoxp-admin-0001",
      user: "U0MEMBER2",
      profile: { title: "Designer", fields: { Xf03FLOOR: { value: "first" } } },
      encoding: "form",
    });
    // Assess
    expect(p.title).toBe("Designer");
    expect(p.fields.Xf03FLOOR).toEqual({ value: "first", alt: "" });
    expect(emu.calls().at(-1)).toMatchObject({
      caller: "U0ADMIN",
      user: "U0MEMBER2",
      outcome: "ok",
    });
  });

  it("leaves an unknown emoji to the service when it does not know the team's custom emoji", async () => {
    // Prepare
    const strict = client({ ctx: { customEmoji: [] } });
    // Act
    const custom = await client().setProfile({
      token: "xoxp-guest-0001",
      profile: { status_text: "Party", status_emoji: ":partyparrot:" },
    });
    const refused = await strict
      .setProfile({
        token: "xoxp-guest-0001",
        profile: { status_text: "Party", status_emoji: ":partyparrot:" },
      })
      .catch((e: unknown) => e);
    const unknown = await client()
      .setProfile({
        token: "xoxp-guest-0001",
        profile: { status_text: "?", status_emoji: ":nope-nope:" },
      })
      .catch((e: unknown) => e);
    // Assess
    expect(custom.status_emoji).toBe(":partyparrot:");
    expect(refused).toMatchObject({ code: "invalid_emoji_not_allowed", local: true });
    expect(unknown).toMatchObject({ code: "invalid_emoji_not_allowed", local: false });
  });

  it("refuses a half clear locally and never sends it", async () => {
    // Prepare
    const before = emu.calls().length;
    // Act
    const err = await client()
      .setProfile({ token: "xoxp-member-0001", profile: { status_text: "", status_emoji: ":x:" } })
      .catch((e: unknown) => e);
    // Assess
    expect(err).toBeInstanceOf(ServiceValidationError);
    expect(err).toMatchObject({
      code: "must_clear_both_status_text_and_status_emoji",
      local: true,
    });
    expect(emu.calls().length).toBe(before);
  });

  it("refuses an invalid manifest locally with the schema's errors", async () => {
    // Act
    const err = await manifests()
      .updateManifest({
        token: "xoxe-config-admin-0001",
        appId: "A0MAIN",
        manifest: "display_information: [",
      })
      .catch((e: unknown) => e);
    // Assess
    expect(err).toMatchObject({ code: "invalid_manifest", local: true });
    expect((err as ServiceError).errors?.length).toBeGreaterThan(0);
  });

  it('points an unreadable manifest\'s error at the whole document (RFC 6901 "")', async () => {
    // Prepare
    const before = emu.calls().length;
    // Act
    const err = await manifests()
      .updateManifest({
        token: "xoxe-config-admin-0001",
        appId: "A0MAIN",
        manifest: '{"display_information": {"name": "x"},',
      })
      .catch((e: unknown) => e);
    // Assess
    expect(err).toBeInstanceOf(ServiceError);
    expect((err as ServiceError).errors).toEqual([
      { message: expect.stringContaining("line 1, column"), pointer: "" },
    ]);
    expect(emu.calls().length).toBe(before);
  });

  it("answers over budget with the instant the next slot frees, without sleeping", async () => {
    // Prepare
    const budget = new TokenBudget({ clock, burst: 2 });
    const c = client({ budget });
    const token = "xoxp-member2-0001";
    await c.setProfile({ token, profile: { title: "a" }, budgetUser: "U0MEMBER2" });
    await c.setProfile({ token, profile: { title: "b" }, budgetUser: "U0MEMBER2" });
    const before = emu.calls().length;
    // Act
    const err = await c
      .setProfile({ token, profile: { title: "c" }, budgetUser: "U0MEMBER2" })
      .catch((e: unknown) => e);
    // Assess
    expect(err).toBeInstanceOf(BudgetExceededError);
    expect(err).toMatchObject({
      code: "ratelimited",
      retryable: true,
      retryAt: clock.now() + 6000,
      retryAfterS: 6,
    });
    expect(emu.calls().length).toBe(before);
  });

  it("reports an unreachable service as a retryable network error", async () => {
    // Act
    const err = await new ServiceClient({
      baseUrl: "http://127.0.0.1:9/api",
      clock,
      timeoutMs: 2000,
    })
      .getProfile({ token: "xoxp-member-0001" })
      .catch((e: unknown) => e);
    // Assess
    expect(err).toMatchObject({ code: "network_error", retryable: true });
  });

  it("gets the same results as @slack/web-api in its default form encoding", async () => {
    // Prepare
    const slack = new WebClient("xoxp-member-0001", {
      slackApiUrl: `${emu.apiBase}/`,
      retryConfig: { retries: 0 },
    });
    const ours = client({ budget: false, validate: false });
    const profile = {
      status_text: "Heads down",
      status_emoji: ":partyparrot:",
      status_expiration: T0S + 900,
    };
    // Act
    const theirs = await slack.users.profile.set({ profile });
    const mine = await ours.setProfile({ token: "xoxp-member-0001", profile });
    const theirsOther = await slack.users.profile
      .set({
        user: "U0MEMBER2",
        profile: { title: "Nope" },
      })
      .catch((e: unknown) => e);
    const mineOther = await ours
      .setProfile({ token: "xoxp-member-0001", user: "U0MEMBER2", profile: { title: "Nope" } })
      .catch((e: unknown) => e);
    const theirsBad = await slack.users.profile
      .set({ profile: { status_text: "x".repeat(101), status_emoji: ":x:" } })
      .catch((e: unknown) => e);
    // Assess
    expect(theirs.ok).toBe(true);
    expect(theirs.profile).toEqual(mine);
    expect((theirsOther as { data: { error: string } }).data.error).toBe("not_admin");
    expect(mineOther).toMatchObject({ code: "not_admin" });
    expect((theirsBad as { data: { error: string } }).data.error).toBe("too_long");
    const formCalls = emu
      .calls()
      .filter((c) => c.method === "users.profile.set")
      .slice(-5);
    expect(formCalls.map((c) => c.outcome)).toEqual([
      "ok",
      "ok",
      "not_admin",
      "not_admin",
      "too_long",
    ]);
  });
});
