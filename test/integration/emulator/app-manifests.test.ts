import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseSnapshot, type RunningEmulator, startEmulator } from "#emulator/server";
import { ManualClock } from "#lib/core/clock";
import { parseManifestText } from "#lib/schema/manifest";
import { ManifestClient } from "#lib/service/manifest-client";
import { repoRoot } from "../../support/osls-package";
import { conformanceWorkspace } from "../service/harness";

// apps.manifest.create and apps.manifest.export, an extension of the seed spec that follows the
// platform's public method reference: create answers the app id, its credentials and an install
// link; the app then exists for every other method (update, export, the OAuth install).

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const ADMIN_CONFIG = "xoxe-config-admin-0001";
const MEMBER_CONFIG = "xoxe-config-member-0001";
const CALLBACK = "https://sp.example/oauth/callback";

const running: RunningEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function setup(snapshot?: Parameters<typeof startEmulator>[0]["snapshot"]) {
  const clock = new ManualClock(T0);
  const workspace = conformanceWorkspace();
  const emu = await startEmulator({
    workspace,
    clock,
    expirySweepMs: 0,
    ...(snapshot ? { snapshot } : {}),
  });
  running.push(emu);
  return { emu, workspace, clock, manifests: new ManifestClient({ baseUrl: emu.apiBase, clock }) };
}

/** The product's own manifest, pointed at https://sp.example. */
async function ourManifest(): Promise<Record<string, unknown>> {
  const text = await readFile(path.join(repoRoot, "infra/manifest.yaml"), "utf8");
  return JSON.parse(
    JSON.stringify(parseManifestText(text)).replaceAll(
      "https://statuspilot.invalid",
      "https://sp.example",
    ),
  ) as Record<string, unknown>;
}

const call = async (emu: RunningEmulator, method: string, token: string, body: object) =>
  (await (
    await fetch(`${emu.apiBase}/${method}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    })
  ).json()) as Record<string, unknown>;

describe("apps.manifest.create and apps.manifest.export", () => {
  it("creates an app whose credentials install it through OAuth, and exports its manifest", async () => {
    // Prepare
    const { emu, manifests } = await setup();
    const manifest = await ourManifest();
    // Act
    const created = await manifests.createManifest({ token: ADMIN_CONFIG, manifest });
    // Assess: an app id like the platform's, credentials, a link carrying the client id and scopes.
    expect(created.appId).toMatch(/^A[0-9A-Z]{10}$/);
    expect(created.clientId).toMatch(/^\d+\.\d+$/);
    expect(created.clientSecret).toMatch(/^[0-9a-f]{32}$/);
    expect(created.signingSecret).toMatch(/^[0-9a-f]{32}$/);
    const link = new URL(created.oauthAuthorizeUrl ?? "");
    expect(`${link.origin}${link.pathname}`).toBe(`${emu.url}/oauth/v2/authorize`);
    expect(link.searchParams.get("client_id")).toBe(created.clientId);
    expect(link.searchParams.get("scope")).toBe("chat:write,commands");
    expect(link.searchParams.get("user_scope")?.split(",").sort()).toEqual([
      "dnd:read",
      "dnd:write",
      "users.profile:read",
      "users.profile:write",
      "users:read",
    ]);
    expect(await manifests.exportManifest({ token: ADMIN_CONFIG, appId: created.appId })).toEqual(
      manifest,
    );
    // Act: the install link, approved as U0MEMBER, then the code exchanged with the credentials.
    link.searchParams.set("redirect_uri", CALLBACK);
    link.searchParams.set("as", "U0MEMBER");
    const consent = await fetch(link, { redirect: "manual" });
    const code = new URL(consent.headers.get("location") ?? "").searchParams.get("code") ?? "";
    const exchange = await fetch(`${emu.apiBase}/oauth.v2.access`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${created.clientId}:${created.clientSecret}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ code, redirect_uri: CALLBACK }).toString(),
    });
    const grant = (await exchange.json()) as { ok: boolean; app_id: string };
    // Assess
    expect(consent.status).toBe(302);
    expect(grant).toMatchObject({ ok: true, app_id: created.appId });
  });

  it("lets the creator update the app; another user's config token may neither update nor export it", async () => {
    // Prepare
    const { emu, manifests } = await setup();
    const manifest = await ourManifest();
    const { appId } = await manifests.createManifest({ token: ADMIN_CONFIG, manifest });
    const renamed = {
      ...manifest,
      display_information: { name: "Statuspilot (staging)" },
    };
    // Act
    const updated = await manifests.updateManifest({
      token: ADMIN_CONFIG,
      appId,
      manifest: renamed,
    });
    const foreignUpdate = await call(emu, "apps.manifest.update", MEMBER_CONFIG, {
      app_id: appId,
      manifest: JSON.stringify(manifest),
    });
    const foreignExport = await call(emu, "apps.manifest.export", MEMBER_CONFIG, {
      app_id: appId,
    });
    // Assess
    expect(updated).toEqual({ appId, permissionsUpdated: false });
    expect(foreignUpdate).toEqual({ ok: false, error: "no_permission" });
    expect(foreignExport).toEqual({ ok: false, error: "no_permission" });
    expect(await manifests.exportManifest({ token: ADMIN_CONFIG, appId })).toEqual(renamed);
  });

  it("answers the documented errors and creates nothing on a refusal", async () => {
    // Prepare
    const { emu } = await setup();
    const manifest = await ourManifest();
    const appsBefore = emu.state().apps.length;
    const noBotUser = { ...manifest, features: { slash_commands: [] } };
    // Act
    const answers = {
      noToken: await call(emu, "apps.manifest.create", "", { manifest: "{}" }),
      userToken: await call(emu, "apps.manifest.create", "xoxp-member-0001", {
        manifest: JSON.stringify(manifest),
      }),
      noManifest: await call(emu, "apps.manifest.create", ADMIN_CONFIG, {}),
      badManifest: await call(emu, "apps.manifest.create", ADMIN_CONFIG, {
        manifest: JSON.stringify({ display_information: {} }),
      }),
      botEventsNoBot: await call(emu, "apps.manifest.create", ADMIN_CONFIG, {
        manifest: JSON.stringify(noBotUser),
      }),
      exportMalformed: await call(emu, "apps.manifest.export", ADMIN_CONFIG, { app_id: "nope" }),
      exportUnknown: await call(emu, "apps.manifest.export", ADMIN_CONFIG, { app_id: "A0UNKNOWN" }),
      exportNoId: await call(emu, "apps.manifest.export", ADMIN_CONFIG, {}),
    };
    // Assess
    expect(answers.noToken.error).toBe("not_authed");
    expect(answers.userToken.error).toBe("not_allowed_token_type");
    expect(answers.noManifest.error).toBe("invalid_arguments");
    expect(answers.badManifest.error).toBe("invalid_manifest");
    expect(answers.badManifest.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ pointer: "/display_information/name" })]),
    );
    expect(answers.botEventsNoBot.error).toBe("invalid_app");
    expect(answers.exportMalformed.error).toBe("invalid_app_id");
    expect(answers.exportUnknown.error).toBe("app_not_found");
    expect(answers.exportNoId.error).toBe("invalid_arguments");
    expect(emu.state().apps).toHaveLength(appsBefore);
  });

  it("keeps a created app, credentials and manifest, across a snapshot and restart", async () => {
    // Prepare
    const first = await setup();
    const manifest = await ourManifest();
    const created = await first.manifests.createManifest({ token: ADMIN_CONFIG, manifest });
    const saved = JSON.parse(JSON.stringify(first.emu.snapshot())) as unknown;
    const read = parseSnapshot(saved, first.workspace);
    if (!read.ok) throw new Error(read.reason);
    // Act
    const second = await setup(read.snapshot);
    const exported = await second.manifests.exportManifest({
      token: ADMIN_CONFIG,
      appId: created.appId,
    });
    const exchange = await call(second.emu, "oauth.v2.access", "", {
      client_id: created.clientId,
      client_secret: "wrong",
      code: "none",
    });
    // Assess: the app is known again with its client (a wrong secret, not an unknown client).
    expect(exported).toEqual(manifest);
    expect(exchange.error).toBe("bad_client_secret");
  });
});
