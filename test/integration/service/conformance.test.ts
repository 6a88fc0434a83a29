import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type RunningEmulator, startEmulator } from "#emulator/server";
import type { Workspace } from "#emulator/workspace";
import { ManualClock } from "#lib/core/clock";
import { ServiceClient } from "#lib/service/client";
import { ServiceError, SPEC_ERROR_CODES } from "#lib/service/errors";
import { ManifestClient } from "#lib/service/manifest-client";
import { conformanceWorkspace, sendTruncatedPost } from "./harness";

/** Every error code of spec section 7. */
const SECTION_7 = [
  // 7.1
  "access_denied",
  "accesslimited",
  "account_inactive",
  "deprecated_endpoint",
  "ekm_access_denied",
  "enterprise_is_restricted",
  "fatal_error",
  "internal_error",
  "invalid_arg_name",
  "invalid_arguments",
  "invalid_array_arg",
  "invalid_auth",
  "invalid_charset",
  "invalid_form_data",
  "invalid_post_type",
  "method_deprecated",
  "missing_post_type",
  "missing_scope",
  "no_permission",
  "not_allowed_token_type",
  "not_authed",
  "org_login_required",
  "ratelimited",
  "request_timeout",
  "service_unavailable",
  "team_access_not_granted",
  "team_added_to_org",
  "token_expired",
  "token_revoked",
  "two_factor_setup_required",
  // 7.2
  "cannot_update_admin_user",
  "email_taken",
  "invalid_emoji_not_allowed",
  "invalid_ooo_message",
  "invalid_profile",
  "invalid_starts_with_at",
  "must_clear_both_status_text_and_status_emoji",
  "name_not_allowed",
  "not_admin",
  "not_app_admin",
  "partial_profile_set_failed",
  "permission_denied",
  "profile_set_failed",
  "reserved_name",
  "sudo_required",
  "too_long",
  "username_same",
  // 7.3
  "app_not_eligible",
  "app_not_owned_by_manager_app",
  "dynamic_client_registration_failed",
  "dynamic_client_registration_invalid_redirect_uri",
  "dynamic_client_registration_invalid_response",
  "dynamic_client_registration_missing_oauth_endpoints",
  "dynamic_client_registration_not_supported",
  "dynamic_client_registration_rejected",
  "failed_adding_collaborator",
  "failed_creating_app",
  "failed_datastore_operation",
  "invalid_app",
  "invalid_app_id",
  "invalid_manifest",
  "oauth_metadata_not_found",
  "unknown_method",
];

/**
 * Codes one workspace cannot produce by its rules; the suite provokes each through `--faults`
 * instead, so the client's handling of them is still exercised.
 */
const FAULT_ONLY: Record<string, string> = {
  access_denied: "no resource of these methods can be denied beyond the token checks",
  accesslimited: "needs a network-level restriction of the method, not modelled",
  deprecated_endpoint: "no endpoint of the emulator is deprecated",
  method_deprecated: "no method of the emulator is deprecated",
  ekm_access_denied: "needs Enterprise Key Management, not modelled",
  enterprise_is_restricted: "needs a call made from an Enterprise, across workspaces",
  fatal_error: "a catastrophic server failure; only injected",
  internal_error: "a transient server failure; only injected",
  service_unavailable: "a transient outage; only injected",
  org_login_required: "needs an enterprise migration in progress",
  team_added_to_org: "needs a migration to an Enterprise Organization in progress",
  team_access_not_granted: "needs a second workspace the token lacks access to",
  two_factor_setup_required: "needs the two-factor policy, not modelled",
  sudo_required: "needs a sudo session policy, not modelled",
  invalid_ooo_message: "the spec defines no out-of-office message field",
  partial_profile_set_failed: "a storage failure; only injected",
  profile_set_failed: "a storage failure; only injected",
  username_same: "users.profile.set sets no username",
  app_not_eligible: "eligibility rules are not shown in the spec",
  failed_adding_collaborator: "only happens when creating apps, which these methods do not",
  failed_creating_app: "only happens when creating apps, which these methods do not",
  failed_datastore_operation: "needs hosted datastore infrastructure",
};

/** Codes not provoked at all, with why. */
const NOT_PROVOKED: Record<string, string> = {};

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const provoked = new Set<string>();

async function expectCode(p: Promise<unknown>, code: string): Promise<ServiceError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, `expected ${code}`).toBeInstanceOf(ServiceError);
  const se = err as ServiceError;
  expect(se.code).toBe(code);
  expect(se.local).toBe(false);
  provoked.add(code);
  return se;
}

const validManifest = {
  display_information: { name: "Statuspilot" },
  features: { bot_user: { display_name: "statuspilot" } },
  oauth_config: { scopes: { user: ["users.profile:write", "users.profile:read"] } },
  settings: { org_deploy_enabled: false, socket_mode_enabled: false },
};

describe("conformance: every error code of spec section 7, over HTTP, through the client", () => {
  const clock = new ManualClock(T0);
  let emu: RunningEmulator;
  let client: ServiceClient;
  let manifests: ManifestClient;
  const extra: RunningEmulator[] = [];

  async function variant(mutate: (ws: Workspace) => void): Promise<ServiceClient> {
    const e = await startEmulator({
      workspace: conformanceWorkspace(mutate),
      clock,
      expirySweepMs: 0,
    });
    extra.push(e);
    return new ServiceClient({ baseUrl: e.apiBase, clock, budget: false, validate: false });
  }

  beforeAll(async () => {
    emu = await startEmulator({ workspace: conformanceWorkspace(), clock, expirySweepMs: 0 });
    client = new ServiceClient({ baseUrl: emu.apiBase, clock, budget: false, validate: false });
    manifests = new ManifestClient({ baseUrl: emu.apiBase, clock, validate: false });
  });
  afterAll(async () => {
    await emu.close();
    await Promise.all(extra.map((e) => e.close()));
  });
  // Each case starts with fresh rate-limit windows.
  beforeEach(() => clock.advance(61_000));

  const status = { status_text: "In a meeting", status_emoji: ":calendar:" };

  describe("authentication (section 5)", () => {
    it("answers not_authed when no token is given", async () => {
      await expectCode(
        client.callRaw("users.profile.set", { body: JSON.stringify({ profile: status }) }),
        "not_authed",
      );
    });
    it("answers invalid_auth for an unknown token", async () => {
      await expectCode(
        client.setProfile({ token: "xoxp-nobody", profile: status }),
        "invalid_auth",
      );
    });
    it("answers invalid_auth for a token called from outside its allowed IP ranges", async () => {
      await expectCode(
        client.setProfile({ token: "xoxp-ranged-0001", profile: status }),
        "invalid_auth",
      );
      await expectCode(
        client.setProfile({ token: "xoxp-iprestricted-0001", profile: status }),
        "invalid_auth",
      );
    });
    it("answers token_expired, token_revoked and account_inactive by the token's state", async () => {
      await expectCode(
        client.setProfile({ token: "xoxp-expired-0001", profile: status }),
        "token_expired",
      );
      await expectCode(
        client.setProfile({ token: "xoxp-revoked-0001", profile: status }),
        "token_revoked",
      );
      await expectCode(
        client.setProfile({ token: "xoxp-inactive-0001", profile: status }),
        "account_inactive",
      );
    });
    it("answers not_allowed_token_type for a bot token on users.profile.set", async () => {
      await expectCode(
        client.setProfile({ token: "xoxb-bot-0001", profile: status }),
        "not_allowed_token_type",
      );
    });
    it("answers missing_scope for a token without users.profile:write", async () => {
      await expectCode(
        client.setProfile({ token: "xoxp-readonly-0001", profile: status }),
        "missing_scope",
      );
    });
    it("accepts the token as a POST parameter too", async () => {
      const body = new URLSearchParams({
        token: "xoxp-member-0001",
        profile: JSON.stringify(status),
      });
      const ok = await client.callRaw("users.profile.set", {
        body: body.toString(),
        contentType: "application/x-www-form-urlencoded",
      });
      expect(ok.ok).toBe(true);
    });
  });

  describe("request shape", () => {
    const token = "xoxp-member-0001";
    it("answers invalid_post_type for an unsupported Content-Type", async () => {
      await expectCode(
        client.callRaw("users.profile.set", {
          token,
          body: "<x/>",
          contentType: "application/xml",
        }),
        "invalid_post_type",
      );
    });
    it("answers missing_post_type for a body without Content-Type", async () => {
      await expectCode(
        client.callRaw("users.profile.set", { token, body: "a=b", contentType: null }),
        "missing_post_type",
      );
    });
    it("answers invalid_charset for a charset other than utf-8 or iso-8859-1", async () => {
      await expectCode(
        client.callRaw("users.profile.set", {
          token,
          body: "{}",
          contentType: "application/json; charset=ebcdic",
        }),
        "invalid_charset",
      );
    });
    it("answers invalid_form_data for a body that does not parse", async () => {
      await expectCode(
        client.callRaw("users.profile.set", { token, body: "{not json" }),
        "invalid_form_data",
      );
      await expectCode(
        client.callRaw("users.profile.set", {
          token,
          body: "profile=%E0%A4%A",
          contentType: "application/x-www-form-urlencoded",
        }),
        "invalid_form_data",
      );
    });
    it("answers invalid_arg_name for an argument name with other characters", async () => {
      await expectCode(
        client.callRaw("users.profile.set", {
          token,
          body: "profile[status_text]=x",
          contentType: "application/x-www-form-urlencoded",
        }),
        "invalid_arg_name",
      );
    });
    it("answers invalid_array_arg for an array where a string belongs", async () => {
      await expectCode(
        client.callRaw("users.profile.set", {
          token,
          body: JSON.stringify({ user: ["U0MEMBER"], profile: status }),
        }),
        "invalid_array_arg",
      );
      await expectCode(
        client.callRaw("users.profile.set", {
          token,
          body: "profile=%7B%7D&profile=%7B%7D",
          contentType: "application/x-www-form-urlencoded",
        }),
        "invalid_array_arg",
      );
    });
    it("answers invalid_profile when profile is not URL-encoded JSON", async () => {
      await expectCode(
        client.callRaw("users.profile.set", {
          token,
          body: "profile=status_text%3Dx",
          contentType: "application/x-www-form-urlencoded",
        }),
        "invalid_profile",
      );
    });
    it("answers invalid_arguments for profile together with name/value, or neither", async () => {
      await expectCode(
        client.callRaw("users.profile.set", {
          token,
          body: JSON.stringify({ profile: status, name: "title", value: "x" }),
        }),
        "invalid_arguments",
      );
      await expectCode(
        client.callRaw("users.profile.set", { token, body: "{}" }),
        "invalid_arguments",
      );
    });
    it("answers unknown_method with HTTP 404 for a method it does not have", async () => {
      const err = await expectCode(
        client.callRaw("users.profile.sett", { token, body: "{}" }),
        "unknown_method",
      );
      expect(err.httpStatus).toBe(404);
    });
  });

  describe("truncated POST data (request_timeout)", () => {
    let slow: RunningEmulator;
    beforeAll(async () => {
      slow = await startEmulator({
        workspace: conformanceWorkspace(),
        clock,
        expirySweepMs: 0,
        bodyTimeoutMs: 200,
      });
    });
    afterAll(async () => slow.close());
    const partial = JSON.stringify({ profile: status });

    it("answers request_timeout when the body stops short of its Content-Length", async () => {
      // Act
      const answer = await sendTruncatedPost({
        port: slow.port,
        path: "/api/users.profile.set",
        token: "xoxp-member-0001",
        body: partial.slice(0, 20),
        declaredLength: partial.length,
        ending: "stall",
      });
      // Assess
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toEqual({ ok: false, error: "request_timeout" });
      expect(slow.calls().at(-1)).toMatchObject({ outcome: "request_timeout" });
      expect(slow.state().profiles.U0MEMBER?.status_text).toBe("");
      provoked.add("request_timeout");
    });

    it("records request_timeout and changes nothing when the client hangs up mid-body", async () => {
      // Act
      const answer = await sendTruncatedPost({
        port: slow.port,
        path: "/api/users.profile.set",
        token: "xoxp-member-0001",
        body: partial.slice(0, 20),
        declaredLength: partial.length,
        ending: "close",
      });
      // Assess: the connection is gone, so Node's HTTP layer has the last word (a bare 400)
      expect([undefined, 400]).toContain(answer.status);
      expect(answer.body).not.toContain('"ok":true');
      await expect.poll(() => slow.calls().at(-1)?.outcome).toBe("request_timeout");
      expect(slow.state().profiles.U0MEMBER?.status_text).toBe("");
    });

    it("still answers the next call on the same emulator", async () => {
      // Act
      const client2 = new ServiceClient({ baseUrl: slow.apiBase, clock, budget: false });
      const profile = await client2.setProfile({ token: "xoxp-member-0001", profile: status });
      // Assess
      expect(profile.status_text).toBe(status.status_text);
    });
  });

  describe("permission rules 1–6 of section 4.1", () => {
    it("answers not_admin when a member changes another user", async () => {
      await expectCode(
        client.setProfile({ token: "xoxp-member-0001", user: "U0MEMBER2", profile: status }),
        "not_admin",
      );
    });
    it("answers not_admin when a user changes their own email", async () => {
      await expectCode(
        client.setProfile({ token: "xoxp-member-0001", profile: { email: "new@conf.example" } }),
        "not_admin",
      );
    });
    it("answers cannot_update_admin_user when an admin changes another admin", async () => {
      await expectCode(
        client.setProfile({ token: "xoxp-admin-0001", user: "U0ADMIN2", profile: status }),
        "cannot_update_admin_user",
      );
    });
    it("answers cannot_update_admin_user when an owner changes another owner's profile", async () => {
      await expectCode(
        client.setProfile({ token: "xoxp-owner-0001", user: "U0PRIMARY", profile: status }),
        "cannot_update_admin_user",
      );
    });
    it("lets an owner change an admin, and the primary owner change an owner", async () => {
      const a = await client.setProfile({
        token: "xoxp-owner-0001",
        user: "U0ADMIN2",
        profile: { title: "Ops" },
      });
      const o = await client.setProfile({
        token: "xoxp-primary-0001",
        user: "U0OWNER",
        profile: { title: "CEO" },
      });
      expect([a.title, o.title]).toEqual(["Ops", "CEO"]);
    });
    it("answers not_app_admin when an admin changes a bot user", async () => {
      await expectCode(
        client.setProfile({ token: "xoxp-admin-0001", user: "U0BOT", profile: status }),
        "not_app_admin",
      );
    });
    it("answers permission_denied when an organisation member changes their own details", async () => {
      await expectCode(
        client.setProfile({ token: "xoxp-org-0001", profile: { title: "Lead" } }),
        "permission_denied",
      );
    });
    it("answers permission_denied for changing another user on a free plan", async () => {
      const free = await variant((ws) => {
        ws.team.plan = "free";
      });
      await expectCode(
        free.setProfile({ token: "xoxp-admin-0001", user: "U0MEMBER", profile: status }),
        "permission_denied",
      );
    });
    it("answers permission_denied for profile details when the profile source is the admin tool", async () => {
      const admin = await variant((ws) => {
        ws.team.profile_source = "admin";
      });
      await expectCode(
        admin.setProfile({ token: "xoxp-member-0001", profile: { title: "x" } }),
        "permission_denied",
      );
      const ok = await admin.setProfile({ token: "xoxp-member-0001", profile: status });
      expect(ok.status_text).toBe("In a meeting");
    });
    it("answers permission_denied for start_date below business-plus", async () => {
      const pro = await variant((ws) => {
        ws.team.plan = "pro";
      });
      await expectCode(
        pro.setProfile({ token: "xoxp-member-0001", profile: { start_date: "2024-01-02" } }),
        "permission_denied",
      );
    });
    it("answers no_permission for a workspace token without a valid x-svc-user", async () => {
      await expectCode(
        client.setProfile({ token: "xoxw-workspace-0001", profile: status }),
        "no_permission",
      );
      await expectCode(
        client.setProfile({
          token: "xoxw-workspace-0001",
          actingUser: "U0NOBODY",
          profile: status,
        }),
        "no_permission",
      );
    });
    it("acts for the x-svc-user with the workspace token, at that user's role", async () => {
      const p = await client.setProfile({
        token: "xoxw-workspace-0001",
        actingUser: "U0MEMBER2",
        profile: status,
      });
      expect(p.status_text).toBe("In a meeting");
      await expectCode(
        client.setProfile({
          token: "xoxw-workspace-0001",
          actingUser: "U0MEMBER2",
          user: "U0MEMBER",
          profile: status,
        }),
        "not_admin",
      );
    });
  });

  describe("field rules", () => {
    const token = "xoxp-member-0001";
    it("answers reserved_name for the platform's bot name", async () => {
      await expectCode(
        client.setProfile({ token, profile: { first_name: "slackbot" } }),
        "reserved_name",
      );
    });
    it("answers invalid_starts_with_at for a name starting with @", async () => {
      await expectCode(
        client.setProfile({ token, profile: { display_name: "@mia" } }),
        "invalid_starts_with_at",
      );
    });
    it("answers name_not_allowed for a URL in a name", async () => {
      await expectCode(
        client.setProfile({ token, profile: { real_name: "Mia https://spam.example" } }),
        "name_not_allowed",
      );
    });
    it("answers too_long for a status text over 100 characters", async () => {
      await expectCode(
        client.setProfile({
          token,
          profile: { status_text: "x".repeat(101), status_emoji: ":x:" },
        }),
        "too_long",
      );
    });
    it("answers invalid_emoji_not_allowed for an emoji the team does not have", async () => {
      await expectCode(
        client.setProfile({
          token,
          profile: { status_text: "hi", status_emoji: ":not-an-emoji:" },
        }),
        "invalid_emoji_not_allowed",
      );
    });
    it("answers must_clear_both_status_text_and_status_emoji for a half clear", async () => {
      await expectCode(
        client.setProfile({ token, profile: { status_text: "" } }),
        "must_clear_both_status_text_and_status_emoji",
      );
    });
    it("answers email_taken when an admin gives a user another member's address", async () => {
      await expectCode(
        client.setProfile({
          token: "xoxp-admin-0001",
          user: "U0MEMBER",
          profile: { email: "max@conf.example" },
        }),
        "email_taken",
      );
    });
  });

  describe("rate limits (section 8.1)", () => {
    it("answers ratelimited with HTTP 429 and Retry-After on the 11th call for one user in a minute", async () => {
      for (let i = 0; i < 10; i++) {
        await client.setProfile({ token: "xoxp-member2-0001", profile: { title: `t${i}` } });
        clock.advance(1000);
      }
      const err = await expectCode(
        client.setProfile({ token: "xoxp-member2-0001", profile: { title: "t10" } }),
        "ratelimited",
      );
      expect(err.httpStatus).toBe(429);
      // The first of the ten calls leaves the window 50 s after the eleventh.
      expect(err.retryAfterS).toBe(50);
      expect(err.retryable).toBe(true);
    });
  });

  describe("apps.manifest.update", () => {
    const token = "xoxe-config-admin-0001";
    it("answers invalid_app_id for an unknown app", async () => {
      await expectCode(
        manifests.updateManifest({ token, appId: "A0NOPE", manifest: validManifest }),
        "invalid_app_id",
      );
    });
    it("answers no_permission for a caller who is not a collaborator", async () => {
      await expectCode(
        manifests.updateManifest({
          token: "xoxe-config-member-0001",
          appId: "A0MAIN",
          manifest: validManifest,
        }),
        "no_permission",
      );
    });
    it("answers not_allowed_token_type for a user token", async () => {
      await expectCode(
        manifests.updateManifest({
          token: "xoxp-admin-0001",
          appId: "A0MAIN",
          manifest: validManifest,
        }),
        "not_allowed_token_type",
      );
    });
    it("answers app_not_owned_by_manager_app for a manager app's token on an app it does not manage", async () => {
      await expectCode(
        manifests.updateManifest({
          token: "xoxe-manager-0001",
          appId: "A0MANAGED",
          manifest: validManifest,
        }),
        "app_not_owned_by_manager_app",
      );
    });
    it("answers invalid_manifest with errors[{message, pointer}] from the schema", async () => {
      const err = await expectCode(
        manifests.updateManifest({
          token,
          appId: "A0MAIN",
          manifest: { display_information: { name: "x".repeat(36) } },
        }),
        "invalid_manifest",
      );
      expect(err.errors?.length).toBeGreaterThan(0);
      expect(err.errors?.[0]?.pointer).toMatch(/^\/display_information/);
    });
    it("answers invalid_app for bot events without a bot user", async () => {
      const manifest = {
        display_information: { name: "Botless" },
        settings: {
          event_subscriptions: {
            request_url: "https://example.com/events",
            bot_events: ["app_mention"],
          },
        },
      };
      await expectCode(
        manifests.updateManifest({ token, appId: "A0MAIN", manifest }),
        "invalid_app",
      );
    });
    it("answers ratelimited after 20 updates of one app in a minute", async () => {
      for (let i = 0; i < 20; i++)
        await manifests.updateManifest({ token, appId: "A0MANAGER", manifest: validManifest });
      const err = await expectCode(
        manifests.updateManifest({ token, appId: "A0MANAGER", manifest: validManifest }),
        "ratelimited",
      );
      expect(err.retryAfterS).toBeGreaterThan(0);
    });
  });

  describe("apps.manifest.update: MCP dynamic client registration", () => {
    type Mode =
      | "no-metadata"
      | "no-endpoints"
      | "no-registration"
      | "bad-redirect"
      | "reject"
      | "bad-response"
      | "unreachable"
      | "ok";
    let mode: Mode = "ok";
    const registrations: unknown[] = [];
    const mcp = createServer((req, res) => {
      const origin = `http://127.0.0.1:${(mcp.address() as AddressInfo).port}`;
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        if (req.url?.startsWith("/.well-known/")) {
          if (mode === "no-metadata") return json(404, {});
          const endpoints = {
            authorization_endpoint: `${origin}/authorize`,
            token_endpoint: `${origin}/token`,
          };
          if (mode === "no-endpoints") return json(200, { issuer: origin });
          if (mode === "no-registration") return json(200, { issuer: origin, ...endpoints });
          const registration =
            mode === "unreachable" ? "http://127.0.0.1:9/register" : `${origin}/register`;
          return json(200, { issuer: origin, ...endpoints, registration_endpoint: registration });
        }
        if (req.url === "/register") {
          registrations.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
          if (mode === "bad-redirect") return json(400, { error: "invalid_redirect_uri" });
          if (mode === "reject") return json(403, { error: "access_denied" });
          if (mode === "bad-response") return json(201, { client_name: "svc" });
          return json(201, { client_id: "client-1" });
        }
        json(404, {});
      });
    });
    beforeAll(() => new Promise<void>((resolve) => mcp.listen(0, "127.0.0.1", resolve)));
    afterAll(() => new Promise<void>((resolve) => mcp.close(() => resolve())));

    const withMcp = () => ({
      ...validManifest,
      mcp_servers: {
        tools: {
          url: `http://127.0.0.1:${(mcp.address() as AddressInfo).port}/mcp`,
          auth_type: "dynamic_client_registration",
        },
      },
    });
    const token = "xoxe-config-admin-0001";

    it.each([
      ["no-metadata", "oauth_metadata_not_found"],
      ["no-endpoints", "dynamic_client_registration_missing_oauth_endpoints"],
      ["no-registration", "dynamic_client_registration_not_supported"],
      ["bad-redirect", "dynamic_client_registration_invalid_redirect_uri"],
      ["reject", "dynamic_client_registration_rejected"],
      ["bad-response", "dynamic_client_registration_invalid_response"],
      ["unreachable", "dynamic_client_registration_failed"],
    ] as const)("answers %s with %s", async (m, code) => {
      mode = m;
      await expectCode(
        manifests.updateManifest({ token, appId: "A0MAIN", manifest: withMcp() }),
        code,
      );
    });

    it("registers with the service's callback as redirect URI, then accepts the manifest", async () => {
      mode = "ok";
      const ok = await manifests.updateManifest({ token, appId: "A0MAIN", manifest: withMcp() });
      expect(ok.appId).toBe("A0MAIN");
      expect(registrations.at(-1)).toMatchObject({
        redirect_uris: ["https://svc.example/oauth/callback"],
      });
    });
  });

  describe("codes only a fault produces", () => {
    afterAll(() => emu.setFaults(""));
    it.each(Object.keys(FAULT_ONLY))("hands %s back as a typed ServiceError", async (code) => {
      emu.setFaults(`${code}=1`);
      await expectCode(client.setProfile({ token: "xoxp-member-0001", profile: status }), code);
    });
  });

  it("accounts for every code of section 7: provoked, fault-only, or listed with a reason", () => {
    // Assess
    const missing = SECTION_7.filter((c) => !provoked.has(c) && !(c in NOT_PROVOKED));
    expect(SECTION_7.length).toBe(63);
    expect([...SPEC_ERROR_CODES].sort()).toEqual([...SECTION_7].sort());
    expect(missing).toEqual([]);
    for (const c of Object.keys(FAULT_ONLY)) expect(provoked.has(c)).toBe(true);
    console.info(
      `provoked ${provoked.size} of ${SECTION_7.length} codes (${Object.keys(FAULT_ONLY).length} by fault); not provoked: ${Object.keys(NOT_PROVOKED).join(", ") || "none"}`,
    );
  });
});
