import { describe, expect, it } from "vitest";
import { configuredProviders, connectProviderAt } from "#lib/app/accounts/providers";
import { loadConfig, microsoftSettingsOf } from "#lib/app/config";
import { MINIMAL_APP_ENV } from "../../support/app-env";

// MICROSOFT_* configuration: the real endpoints by default (the identity platform's v2
// endpoints under tenant `common`, Graph v1.0), the emulator's when given, and no "Connect
// Microsoft" without a client id and a secret (in clear or as an SSM parameter name).

const BASE = MINIMAL_APP_ENV;

describe("Microsoft configuration", () => {
  it("defaults to the real endpoints", () => {
    const settings = microsoftSettingsOf(
      loadConfig({
        ...BASE,
        MICROSOFT_CLIENT_ID: "app-id",
        MICROSOFT_CLIENT_SECRET_PARAM: "/sp/ms-secret",
      }),
    );
    expect(settings).toEqual({
      clientId: "app-id",
      secret: { param: "/sp/ms-secret" },
      authUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
      tokenUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
      apiBaseUrl: "https://graph.microsoft.com/v1.0",
    });
  });

  it("uses configured addresses (an emulator's) and a secret in clear", () => {
    const config = loadConfig({
      ...BASE,
      MICROSOFT_CLIENT_ID: "app-id",
      MICROSOFT_CLIENT_SECRET: "clear-secret",
      MICROSOFT_AUTH_URL: "http://127.0.0.1:5001/common/oauth2/v2.0/authorize",
      MICROSOFT_TOKEN_URL: "http://127.0.0.1:5001/common/oauth2/v2.0/token",
      MICROSOFT_GRAPH_BASE_URL: "http://127.0.0.1:5001/v1.0",
    });
    expect(microsoftSettingsOf(config)).toMatchObject({
      secret: { clear: "clear-secret" },
      authUrl: "http://127.0.0.1:5001/common/oauth2/v2.0/authorize",
      apiBaseUrl: "http://127.0.0.1:5001/v1.0",
    });
    expect(configuredProviders(config).map((p) => p.path)).toContain("microsoft");
  });

  it("is not configured without a client id or a secret, and refuses a bad address", () => {
    expect(
      microsoftSettingsOf(loadConfig({ ...BASE, MICROSOFT_CLIENT_ID: "app-id" })),
    ).toBeUndefined();
    expect(
      microsoftSettingsOf(loadConfig({ ...BASE, MICROSOFT_CLIENT_SECRET: "x" })),
    ).toBeUndefined();
    expect(configuredProviders(loadConfig(BASE)).map((p) => p.path)).not.toContain("microsoft");
    expect(() => loadConfig({ ...BASE, MICROSOFT_GRAPH_BASE_URL: "not a url" })).toThrow(
      /MICROSOFT_GRAPH_BASE_URL/,
    );
  });

  it("connects at /connect/microsoft, makes graph sources, and pushes to /hooks/graph", () => {
    expect(connectProviderAt("microsoft")).toMatchObject({
      kind: "graph",
      label: "Microsoft",
      hookPath: "/hooks/graph",
    });
  });
});
