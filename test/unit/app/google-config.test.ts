import { describe, expect, it } from "vitest";
import { googleSettingsOf, loadConfig } from "#lib/app/config";
import { MINIMAL_APP_ENV } from "../../support/app-env";

const base = MINIMAL_APP_ENV;

/** GOOGLE_* (issue 14): off without a client id; the real Google endpoints by default. */
describe("Google's configuration", () => {
  it("is off without GOOGLE_CLIENT_ID or a secret", () => {
    expect(googleSettingsOf(loadConfig(base))).toBeUndefined();
    expect(googleSettingsOf(loadConfig({ ...base, GOOGLE_CLIENT_ID: "id" }))).toBeUndefined();
    expect(googleSettingsOf(loadConfig({ ...base, GOOGLE_CLIENT_ID: "" }))).toBeUndefined();
  });

  it("defaults to Google's own endpoints, the secret in clear or as an SSM parameter", () => {
    const clear = googleSettingsOf(
      loadConfig({ ...base, GOOGLE_CLIENT_ID: "id", GOOGLE_CLIENT_SECRET: "sec" }),
    );
    expect(clear).toEqual({
      clientId: "id",
      secret: { clear: "sec" },
      authUrl: "https://accounts.google.com/o/oauth2/v2/auth",
      tokenUrl: "https://oauth2.googleapis.com/token",
      apiBaseUrl: "https://www.googleapis.com",
    });
    const param = googleSettingsOf(
      loadConfig({
        ...base,
        GOOGLE_CLIENT_ID: "id",
        GOOGLE_CLIENT_SECRET_PARAM: "/statuspilot/dev/google-client-secret",
        GOOGLE_API_BASE_URL: "http://127.0.0.1:4011",
      }),
    );
    expect(param?.secret).toEqual({ param: "/statuspilot/dev/google-client-secret" });
    expect(param?.apiBaseUrl).toBe("http://127.0.0.1:4011");
  });

  it("refuses an endpoint that is not a URL, naming it", () => {
    expect(() => loadConfig({ ...base, GOOGLE_TOKEN_URL: "not a url" })).toThrow(
      /GOOGLE_TOKEN_URL/,
    );
  });
});
