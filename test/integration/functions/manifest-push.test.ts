import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadWorkspace, type RunningEmulator, startEmulator } from "#emulator/server";
import { run } from "#lib/cli/manifest-push";
import { parseManifestText, validateManifest } from "#lib/schema/manifest";
import { fixturePath, repoRoot } from "./harness";

const manifestFile = path.join(repoRoot, "infra/manifest.yaml");

function bufferIo() {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { out: (t: string) => out.push(t), err: (t: string) => err.push(t) }, out, err };
}

describe("infra/manifest.yaml", () => {
  it("is a valid manifest with the user scope, the user_change subscription, /ooo and /statuspilot", async () => {
    // Prepare
    const doc = parseManifestText(await readFile(manifestFile, "utf8")) as {
      oauth_config: { scopes: { user: string[] } };
      settings: { event_subscriptions: { user_events: string[]; request_url: string } };
      features: { slash_commands: Array<{ command: string }>; bot_user: { display_name: string } };
    };
    // Act
    const problems = validateManifest(doc);
    // Assess
    expect(problems).toEqual([]);
    expect(doc.oauth_config.scopes.user).toContain("users.profile:write");
    expect(doc.settings.event_subscriptions.user_events).toEqual(["user_change"]);
    expect(doc.features.slash_commands.map((c) => c.command)).toEqual(["/ooo", "/statuspilot"]);
    expect(doc.features.bot_user.display_name).toBe("statuspilot");
  });

  it("asks for users:read, lists a redirect URL, subscribes to tokens_revoked, app_uninstalled and app_home_opened, and has the Home tab and interactivity", async () => {
    // Prepare
    const doc = parseManifestText(await readFile(manifestFile, "utf8")) as {
      oauth_config: { redirect_urls: string[]; scopes: { user: string[]; bot: string[] } };
      settings: {
        event_subscriptions: { bot_events: string[] };
        interactivity: { is_enabled: boolean };
      };
      features: { app_home: { home_tab_enabled: boolean } };
    };
    // Assess: the platform requires users:read for user_change; the bot's scopes are its slash
    // commands and its direct messages (issue 26); the Home tab and its buttons.
    expect([...doc.oauth_config.scopes.user].sort()).toEqual([
      "dnd:read",
      "dnd:write",
      "users.profile:read",
      "users.profile:write",
      "users:read",
    ]);
    expect([...doc.oauth_config.scopes.bot].sort()).toEqual(["chat:write", "commands"]);
    expect(doc.features.app_home.home_tab_enabled).toBe(true);
    expect(doc.settings.interactivity.is_enabled).toBe(true);
    expect(doc.oauth_config.redirect_urls).toHaveLength(1);
    expect([...doc.settings.event_subscriptions.bot_events].sort()).toEqual([
      "app_home_opened",
      "app_uninstalled",
      "tokens_revoked",
    ]);
  });
});

describe("statuspilot manifest push against the emulator", () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    emulator = await startEmulator({
      workspace: loadWorkspace(fixturePath("workspace.json")),
      port: 0,
      expirySweepMs: 0,
    });
  });
  afterAll(async () => emulator?.close());

  it("updates the app with the deployed request URLs, the token from the environment", async () => {
    // Prepare
    const { io, out } = bufferIo();
    // Act
    const code = await run(
      [
        "--app-id",
        "A0STATUSPILOT",
        "--base-url",
        emulator.apiBase,
        "--request-url",
        "https://api.statuspilot.example",
        "--file",
        manifestFile,
      ],
      io,
      { env: { STATUSPILOT_CONFIG_TOKEN: "xoxe-demo-config" } },
    );
    // Assess
    expect(code).toBe(0);
    expect(out.join("\n")).toMatch(/permissions_updated: (true|false)/);
    const app = emulator.state().apps.find((a) => a.id === "A0STATUSPILOT");
    expect(app?.manifest).toMatchObject({
      settings: {
        event_subscriptions: { request_url: "https://api.statuspilot.example/service/events" },
        interactivity: { request_url: "https://api.statuspilot.example/service/interactive" },
      },
      features: {
        slash_commands: [
          { url: "https://api.statuspilot.example/service/commands/ooo" },
          { url: "https://api.statuspilot.example/service/commands/statuspilot" },
        ],
      },
      oauth_config: { redirect_urls: ["https://api.statuspilot.example/oauth/callback"] },
    });
  });

  it("prints local problems with their pointers and sends nothing", async () => {
    // Prepare
    const { io, err } = bufferIo();
    const before = emulator.calls().length;
    // Act
    const code = await run(
      [
        "--app-id",
        "A0STATUSPILOT",
        "--token",
        "xoxe-demo-config",
        "--base-url",
        emulator.apiBase,
        "--request-url",
        "https://api.statuspilot.example",
        "--file",
        fixturePath("manifest-too-long-name.yaml"),
      ],
      io,
    );
    // Assess
    expect(code).toBe(1);
    expect(err.join("\n")).toMatch(/\/display_information\/name: .*35/);
    expect(emulator.calls().length).toBe(before);
  });

  it("prints the service's refusal readably and exits 1", async () => {
    const { io, err } = bufferIo();
    const code = await run(
      [
        "--app-id",
        "A0STATUSPILOT",
        "--token",
        "xoxp-not-a-token",
        "--base-url",
        emulator.apiBase,
        "--request-url",
        "https://api.statuspilot.example",
        "--file",
        manifestFile,
      ],
      io,
    );
    expect(code).toBe(1);
    expect(err.join("\n")).toMatch(/the service refused the manifest: invalid_auth/);
  });

  it("answers a missing --token with usage and exit 64", async () => {
    const { io, err } = bufferIo();
    expect(await run(["--app-id", "A0STATUSPILOT"], io, { env: {} })).toBe(64);
    expect(err.join("\n")).toMatch(/missing --token \(or STATUSPILOT_CONFIG_TOKEN\)/);
  });

  it("refuses to push without --request-url, or with a placeholder one, and sends nothing", async () => {
    // Prepare
    const { io, err } = bufferIo();
    const before = emulator.calls().length;
    const base = ["--app-id", "A0STATUSPILOT", "--token", "xoxe-demo-config"];
    // Act
    const missing = await run([...base, "--file", manifestFile], io);
    const placeholder = await run(
      [...base, "--request-url", "https://statuspilot.invalid", "--file", manifestFile],
      io,
    );
    // Assess
    expect(missing).toBe(64);
    expect(placeholder).toBe(64);
    expect(err.join("\n")).toMatch(/missing --request-url/);
    expect(err.join("\n")).toMatch(/not a placeholder/);
    expect(emulator.calls().length).toBe(before);
  });

  it("answers an unreadable file with exit 2", async () => {
    const { io } = bufferIo();
    const code = await run(
      [
        "--app-id",
        "A",
        "--token",
        "T",
        "--request-url",
        "https://api.statuspilot.example",
        "--file",
        fixturePath("no-such-manifest.yaml"),
      ],
      io,
    );
    expect(code).toBe(2);
  });
});
