import { describe, expect, it } from "vitest";
import { ConfigError } from "#devstack/errors";
import { parseLocalConfig } from "#lib/local/config";

const user = {
  team: "T0DEMO",
  user: "U001",
  token: "xoxp-demo-U001",
  tz: "Europe/Berlin",
  calendars: ["http://127.0.0.1:8080/u001.ics"],
};

describe("parseLocalConfig", () => {
  it("accepts users with calendars and optional rules", () => {
    // Act
    const users = parseLocalConfig({ users: [{ ...user, rules: { showTitles: true } }] });
    // Assess
    expect(users).toEqual([{ ...user, rules: { showTitles: true } }]);
  });

  it("names the pointer of the first problem and never echoes the token", () => {
    // Act
    const attempt = () => parseLocalConfig({ users: [{ ...user, tz: "Mars/Olympus" }] });
    // Assess
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow("config /users/0/tz (user T0DEMO/U001): not an IANA time zone");
    try {
      attempt();
    } catch (error: unknown) {
      expect(error instanceof ConfigError && error.pointer).toBe("/users/0/tz");
      expect(String(error)).not.toContain("xoxp-demo-U001");
    }
  });

  it("refuses a duplicate user and a calendar that is not http(s)", () => {
    expect(() => parseLocalConfig({ users: [user, user] })).toThrow("duplicate user T0DEMO/U001");
    expect(() =>
      parseLocalConfig({ users: [{ ...user, calendars: ["file:///etc/passwd"] }] }),
    ).toThrow("/users/0/calendars/0");
  });
});

describe("the config's providers.google", () => {
  const user = {
    team: "T0DEMO",
    user: "U001",
    token: "xoxp-1",
    tz: "Europe/Berlin",
    calendars: ["https://cal.example/a.ics"],
  };
  const google = {
    clientId: "id.apps.googleusercontent.com",
    clientSecret: "secret",
    authUrl: "https://accounts.google.com/o/oauth2/v2/auth",
    tokenUrl: "https://oauth2.googleapis.com/token",
    apiBaseUrl: "https://www.googleapis.com",
  };

  it("is accepted beside the users, and its addresses must be http(s)", () => {
    expect(parseLocalConfig({ users: [user], providers: { google } })).toHaveLength(1);
    expect(() =>
      parseLocalConfig({
        users: [user],
        providers: { google: { ...google, tokenUrl: "ftp://x" } },
      }),
    ).toThrow(/providers\/google\/tokenUrl/);
    expect(() =>
      parseLocalConfig({ users: [user], providers: { google: { ...google, clientId: "" } } }),
    ).toThrow(/providers\/google\/clientId/);
  });
});
