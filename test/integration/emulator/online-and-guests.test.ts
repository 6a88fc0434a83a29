import { describe, expect, it } from "vitest";
import { DEMO_CLIENTS, DEMO_USERS, startMicrosoftEmulator } from "#emulator/microsoft/server";
import { readGoogleWindow } from "#lib/calendar/providers/google";
import { graphApi } from "#lib/calendar/providers/graph";
import { ManualClock } from "#lib/core/clock";
import type { Occurrence } from "#lib/core/types";
import { connect, setup, T0, USER } from "./google-harness";

// What the rules' `online` and `skipNoGuests` read, from each provider's emulator over real
// HTTP: Google's conferenceData and hangoutLink, Graph's isOnlineMeeting and onlineMeeting;
// the guests are everyone but the user (rooms left out). And each calendar's display name.

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const bySummary = (occurrences: Occurrence[]) =>
  Object.fromEntries(
    occurrences.map((o) => [o.summary, { online: o.online === true, guests: o.guests }]),
  );

describe("the Google provider against the emulator", () => {
  it("reads a Meet or Zoom conference as online, and counts the guests but the user and rooms", async () => {
    // Prepare
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    const timed = (summary: string, hour: number, extra: Record<string, unknown> = {}) =>
      emu.control.addEvent(USER, {
        summary,
        start: { dateTime: iso(T0 + hour * HOUR) },
        end: { dateTime: iso(T0 + (hour + 1) * HOUR) },
        ...extra,
      });
    timed("Meet", 1, {
      conferenceData: {
        conferenceId: "abc-defg-hij",
        conferenceSolution: { key: { type: "hangoutsMeet" } },
        entryPoints: [{ entryPointType: "video", uri: "https://meet.google.com/abc-defg-hij" }],
      },
      attendees: [{ email: USER }, { email: "bo@example.com" }],
    });
    timed("Zoom", 2, {
      conferenceData: {
        conferenceSolution: { key: { type: "addOn" }, name: "Zoom Meeting" },
        entryPoints: [{ entryPointType: "video", uri: "https://us02web.zoom.us/j/123" }],
      },
    });
    timed("Alone with a room", 3, {
      attendees: [{ email: USER }, { email: "room-4@resource.example", resource: true }],
    });
    timed("Invited", 4, { organizer: { email: "cy@example.com" }, attendees: [{ email: USER }] });
    // Act
    const read = await readGoogleWindow(
      { tz: "UTC", emails: [] },
      { from: T0, to: T0 + 24 * HOUR },
      {
        fetch,
        clock: new ManualClock(T0),
        apiBaseUrl: emu.apiBaseUrl,
        accessToken: async () => accessToken,
      },
    );
    // Assess
    expect(read.fetch.kind).toBe("fetched");
    // The primary calendar's title is the account's address: named once.
    expect(read.fetch).toMatchObject({ name: USER });
    const occurrences = read.fetch.kind === "fetched" ? read.fetch.occurrences : [];
    expect(bySummary(occurrences)).toEqual({
      Meet: { online: true, guests: 1 },
      Zoom: { online: true, guests: 0 },
      "Alone with a room": { online: false, guests: 0 },
      Invited: { online: false, guests: 1 },
    });
  });
});

describe("the Graph provider against the emulator", () => {
  it("reads an online meeting as online, and counts the guests but the user", async () => {
    // Prepare
    const clock = new ManualClock(T0);
    const emu = await startMicrosoftEmulator({
      clock,
      expirySweepMs: 0,
      notificationRetryDelaysMs: [],
    });
    try {
      const user = DEMO_USERS[0]?.id ?? "";
      const client = DEMO_CLIENTS[0]?.clientId ?? "";
      const tokens = emu.issueTokens(client, user, ["offline_access", "Calendars.Read"]) as {
        access_token: string;
      };
      const own = DEMO_USERS[0]?.userPrincipalName ?? "";
      const at = (hour: number) => ({ start: T0 + hour * HOUR, end: T0 + (hour + 1) * HOUR });
      emu.createEvent(user, {
        subject: "Teams",
        ...at(1),
        isOnlineMeeting: true,
        attendees: ["bo@example.com"],
      });
      emu.createEvent(user, { subject: "Mine alone", ...at(2) });
      emu.createEvent(user, {
        subject: "Invited",
        ...at(3),
        response: "accepted",
        attendees: [own],
      });
      emu.createEvent(user, {
        subject: "Invited, guessed",
        ...at(4),
        response: "accepted",
        attendees: [own, "dee@example.com"],
      });
      // Act
      const read = async (emails: string[]) =>
        graphApi({ graphBaseUrl: emu.graphBaseUrl }).readWindow(
          { window: { from: T0, to: T0 + 24 * HOUR }, tz: "UTC", emails },
          { fetch, clock, accessToken: async () => tokens.access_token },
        );
      const known = await read([own.toUpperCase()]);
      const unknown = await read([]);
      // Assess: with the user's address known, and without it (one invitee is taken for the user).
      const occurrencesOf = (r: Awaited<ReturnType<typeof read>>) =>
        r.fetch.kind === "fetched" ? r.fetch.occurrences : [];
      expect(bySummary(occurrencesOf(known))).toEqual({
        Teams: { online: true, guests: 1 },
        "Mine alone": { online: false, guests: 0 },
        Invited: { online: false, guests: 1 },
        "Invited, guessed": { online: false, guests: 2 },
      });
      expect(known.fetch).toMatchObject({ name: `Outlook calendar (${own})` });
      expect(bySummary(occurrencesOf(unknown))).toMatchObject({
        Teams: { guests: 1 },
        "Mine alone": { guests: 0 },
        Invited: { guests: 1 },
        "Invited, guessed": { guests: 2 },
      });
    } finally {
      await emu.close();
    }
  });
});
