import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../devstack/errors";
import { parseLocalConfig, parseLocalProviders } from "../../../lib/local/config";
import { microsoftEnvOf } from "../../../lib/local/microsoft-config";

// `providers.microsoft` of the local --config: clientId, clientSecret, authUrl, tokenUrl and
// graphBaseUrl (issue 14 §5), as the MICROSOFT_* settings the app reads.

const user = {
  team: "T0DEMO",
  user: "U001",
  token: "xoxp-demo-U001",
  tz: "Europe/Berlin",
  calendars: ["http://127.0.0.1:8080/u001.ics"],
};
const microsoft = {
  clientId: "app-id",
  clientSecret: "very-secret-value",
  authUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
  tokenUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/token",
  graphBaseUrl: "https://graph.microsoft.com/v1.0",
};

describe("providers.microsoft in the local config", () => {
  it("is optional, and when given becomes the MICROSOFT_* settings", () => {
    expect(parseLocalProviders({ users: [user] })).toEqual({});
    expect(parseLocalConfig({ users: [user], providers: { microsoft } })).toEqual([user]);
    const parsed = parseLocalProviders({ users: [user], providers: { microsoft } });
    expect(parsed.microsoft && microsoftEnvOf(parsed.microsoft)).toEqual({
      MICROSOFT_CLIENT_ID: "app-id",
      MICROSOFT_CLIENT_SECRET: "very-secret-value",
      MICROSOFT_AUTH_URL: microsoft.authUrl,
      MICROSOFT_TOKEN_URL: microsoft.tokenUrl,
      MICROSOFT_GRAPH_BASE_URL: microsoft.graphBaseUrl,
    });
  });

  it("names the bad member by pointer and never echoes the secret", () => {
    const attempt = () =>
      parseLocalProviders({
        users: [user],
        providers: { microsoft: { ...microsoft, graphBaseUrl: "nope" } },
      });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow("/providers/microsoft/graphBaseUrl");
    const missing = () =>
      parseLocalProviders({
        users: [user],
        providers: { microsoft: { ...microsoft, clientId: undefined } },
      });
    expect(missing).toThrow("/providers/microsoft/clientId");
    try {
      missing();
    } catch (error: unknown) {
      expect(String(error)).not.toContain("very-secret-value");
    }
    expect(() => parseLocalProviders({ users: [user], providers: { outlook: {} } })).toThrow(
      "/providers",
    );
  });
});
