import { describe, expect, it } from "vitest";
import { ConfigError } from "#devstack/errors";
import { parseLocalConfig } from "#lib/local/config";
import { demoConfigUser } from "./demo-user";

const user = demoConfigUser;

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

describe("the config's rules", () => {
  const two = { ...user, calendars: [...user.calendars, "http://127.0.0.1:8080/u001-home.ics"] };
  const lunch = { name: "Lunch", text: "At lunch", emoji: ":fork_and_knife:", priority: 15 };

  it("accepts a whole setup naming the calendars by their ids, cal1 and cal2", () => {
    const rules = {
      custom: [{ ...lunch, keywords: ["lunch"], calendars: ["cal2"], dnd: true }],
      skipCalendars: ["cal1"],
      skipNoGuests: true,
      workingHours: { start: "09:00", end: "17:30" },
      standing: "restore",
    };
    expect(parseLocalConfig({ users: [{ ...two, rules }] })[0]?.rules).toEqual(rules);
  });

  it.each([
    [
      { custom: [{ ...lunch, priority: 0 }] },
      "/users/1/rules/custom/0/priority",
      "priority must be a whole number from 1 to 99",
    ],
    [
      { skipCalendars: ["cal3"] },
      "/users/1/rules/skipCalendars/0",
      'no calendar "cal3"; this person\'s calendars are: cal1, cal2',
    ],
    [
      { custom: [{ ...lunch, calendars: ["work"] }] },
      "/users/1/rules/custom/0/calendars/0",
      'no calendar "work"',
    ],
    [
      { workingHours: { start: "09:00", end: "09:00" } },
      "/users/1/rules/workingHours/end",
      "end must differ from start",
    ],
    [{ titles: "private" }, "/users/1/rules", "titles"],
  ])("refuses %j naming the user and the field", (rules, pointer, words) => {
    const other = { ...two, user: "U002", token: "xoxp-demo-U002", rules };
    const attempt = () => parseLocalConfig({ users: [user, other] });
    expect(attempt).toThrow(`config ${pointer} (user T0DEMO/U002): `);
    expect(attempt).toThrow(words);
    try {
      attempt();
    } catch (error: unknown) {
      expect(error instanceof ConfigError && error.pointer).toBe(pointer);
    }
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
