import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadLocalConfig } from "#lib/local/config";
import { loadLocalProviders } from "#lib/local/config-providers";
import { microsoftEnvOf } from "#lib/local/microsoft-config";
import { demoConfigUser } from "./demo-user";

// `providers.microsoft` of the local --config: clientId, clientSecret, authUrl, tokenUrl and
// graphBaseUrl (issue 14 §5), as the MICROSOFT_* settings the app reads.

const user = demoConfigUser;
const microsoft = {
  clientId: "app-id",
  clientSecret: "very-secret-value",
  authUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
  tokenUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
  graphBaseUrl: "https://graph.microsoft.com/v1.0",
};

function configFile(doc: unknown): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "sp-ms-")), "config.json");
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

describe("providers.microsoft in the local config", () => {
  it("is optional, and when given becomes the MICROSOFT_* settings", () => {
    expect(loadLocalProviders(configFile({ users: [user] }))).toEqual({});
    const file = configFile({ users: [user], providers: { microsoft } });
    expect(loadLocalConfig(file)).toEqual([user]);
    const { microsoft: given } = loadLocalProviders(file);
    expect(given && microsoftEnvOf(given)).toEqual({
      MICROSOFT_CLIENT_ID: "app-id",
      MICROSOFT_CLIENT_SECRET: "very-secret-value",
      MICROSOFT_AUTH_URL: microsoft.authUrl,
      MICROSOFT_TOKEN_URL: microsoft.tokenUrl,
      MICROSOFT_GRAPH_BASE_URL: microsoft.graphBaseUrl,
    });
  });

  it("names the bad member by pointer and never echoes the secret", () => {
    const bad = configFile({
      users: [user],
      providers: { microsoft: { ...microsoft, graphBaseUrl: "nope" } },
    });
    expect(() => loadLocalConfig(bad)).toThrow("/providers/microsoft/graphBaseUrl");
    const missing = configFile({
      users: [user],
      providers: { microsoft: { ...microsoft, clientId: undefined } },
    });
    expect(() => loadLocalConfig(missing)).toThrow("/providers/microsoft/clientId");
    try {
      loadLocalConfig(missing);
    } catch (error: unknown) {
      expect(String(error)).not.toContain("very-secret-value");
    }
  });
});
