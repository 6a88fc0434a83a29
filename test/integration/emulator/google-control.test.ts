import { describe, expect, it } from "vitest";
import { demoEventId, seedGoogleDemo } from "#emulator/google/demo";
import { startGoogleEmulator } from "#emulator/google/server";
import { ManualClock } from "#lib/core/clock";
import {
  CLIENT_ID,
  CLIENT_SECRET,
  connect,
  ids,
  items,
  type Json,
  listEvents,
  REDIRECT,
  setup,
  startPushReceiver,
  T0,
  USER,
} from "./google-harness";

// The control surface as JSON over HTTP under /_control/, the clock source, and the deletion
// of a calendar (Google's `not_exists` resource state).

async function control(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}/_control/${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

describe("Google emulator: control surface over HTTP", () => {
  it("creates a client and a user, adds, edits, cancels and deletes events; an edit pushes", async () => {
    const emu = await startGoogleEmulator({ clock: new ManualClock(T0) });
    try {
      const c = (method: string, path: string, body?: unknown) =>
        control(emu.url, method, path, body);
      expect(
        (
          await c("POST", "clients", {
            clientId: CLIENT_ID,
            clientSecret: CLIENT_SECRET,
            redirectUris: [REDIRECT],
          })
        ).status,
      ).toBe(200);
      expect((await c("POST", "clients", { clientId: "x" })).status).toBe(400);
      const user = await c("POST", "users", { email: USER, timeZone: "Europe/Berlin" });
      expect(user.body).toMatchObject({ email: USER, timeZone: "Europe/Berlin" });
      expect((await c("POST", "users", { email: USER })).status).toBe(409);
      expect(await c("POST", "users", { name: "no address" })).toMatchObject({
        status: 400,
        body: { pointer: "/email" },
      });
      expect(await c("POST", "faults", { rateLimit: { status: 500 } })).toMatchObject({
        status: 400,
        body: { pointer: "/rateLimit/status" },
      });
      expect((await c("POST", "consent", { autoApprove: USER })).status).toBe(200);
      const { accessToken } = await connect(emu);
      const receiver = await startPushReceiver();
      await fetch(`${emu.apiBaseUrl}/calendar/v3/calendars/primary/events/watch`, {
        method: "POST",
        headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
        body: JSON.stringify({ id: "ch1", type: "web_hook", address: receiver.url }),
      });

      const added = await c("POST", `calendars/${USER}/events`, {
        summary: "Sync",
        start: { dateTime: "2025-03-03T10:00:00Z" },
        end: { dateTime: "2025-03-03T10:30:00Z" },
      });
      expect(added.status).toBe(200);
      const id = String(added.body.id);
      expect(id).toMatch(/^[a-v0-9]{5,}$/);
      const bad = await c("POST", `calendars/${USER}/events`, {
        start: { dateTime: "2025-03-03T10:00:00Z" },
        end: { dateTime: "2025-03-03T09:00:00Z" },
      });
      expect(bad).toMatchObject({ status: 400, body: { pointer: "/end" } });
      expect(
        (await c("PATCH", `calendars/${USER}/events/${id}`, { summary: "Sync!" })).body,
      ).toMatchObject({ summary: "Sync!" });
      expect((await c("POST", `calendars/${USER}/events/${id}/cancel`)).body).toMatchObject({
        status: "cancelled",
      });
      expect((await c("DELETE", `calendars/${USER}/events/${id}`)).body).toEqual({
        kind: "calendar#event",
        etag: expect.any(String),
        id,
        status: "cancelled",
      });
      expect((await c("PATCH", `calendars/${USER}/events/nothere1`, { summary: "?" })).status).toBe(
        404,
      );

      await c("POST", "flush");
      const states = receiver.received.map((p) => p.headers["x-goog-resource-state"]);
      expect(states).toEqual(["sync", "exists", "exists", "exists", "exists"]);
      const channels = await c("GET", "channels");
      expect(channels.body.channels).toMatchObject([{ id: "ch1", live: true, messageNumber: 5 }]);
      const pushes = await c("GET", "pushes");
      expect((pushes.body.pushes as Json[]).every((p) => p.outcome === "delivered")).toBe(true);
      const faults = await c("POST", "faults", { rateLimit: { status: 429, times: 1 } });
      expect(faults.body).toMatchObject({ rateLimit: { status: 429, times: 1 } });
      expect((await listEvents(emu, accessToken, {})).status).toBe(429);
      expect((await c("GET", "state")).body).toMatchObject({
        users: [{ email: USER }],
        faults: { rateLimit: null },
      });
      expect((await c("GET", "nothing")).status).toBe(404);
    } finally {
      await emu.close();
    }
  });

  it("the clock can be set over HTTP and restored; channel expiry follows it", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    const receiver = await startPushReceiver();
    await fetch(`${emu.apiBaseUrl}/calendar/v3/calendars/primary/events/watch`, {
      method: "POST",
      headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        id: "ch",
        type: "web_hook",
        address: receiver.url,
        params: { ttl: "3600" },
      }),
    });
    await control(emu.url, "POST", "clock", { now: T0 + 3_600_000 });
    expect((await control(emu.url, "GET", "channels")).body.channels).toMatchObject([
      { live: false },
    ]);
    await control(emu.url, "POST", "clock", { now: null });
    expect((await control(emu.url, "GET", "channels")).body.channels).toMatchObject([
      { live: true },
    ]);
    // setClock replaces the source programmatically.
    emu.setClock({ now: () => T0 + 7_200_000 });
    expect(emu.control.channels()[0]?.live).toBe(false);
  });

  it("deleting the calendar sends not_exists and ends its channels; reads then answer 404", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    const receiver = await startPushReceiver();
    await fetch(`${emu.apiBaseUrl}/calendar/v3/calendars/primary/events/watch`, {
      method: "POST",
      headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json" },
      body: JSON.stringify({ id: "ch", type: "web_hook", address: receiver.url }),
    });
    expect((await control(emu.url, "DELETE", `calendars/${USER}`)).status).toBe(200);
    await emu.control.flushPushes();
    expect(receiver.received.map((p) => p.headers["x-goog-resource-state"])).toEqual([
      "sync",
      "not_exists",
    ]);
    expect(emu.control.channels()[0]?.live).toBe(false);
    expect((await listEvents(emu, accessToken, {})).status).toBe(404);
  });

  it("all-day events meet a window at the calendar zone's midnights", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    emu.control.addEvent(USER, {
      summary: "Off",
      start: { date: "2025-03-04" },
      end: { date: "2025-03-05" },
    });
    // Berlin is UTC+1: 4 March begins at 2025-03-03T23:00:00Z.
    const before = await listEvents(emu, accessToken, {
      timeMin: "2025-03-03T12:00:00Z",
      timeMax: "2025-03-03T23:00:00Z",
    });
    expect(ids(before.body)).toEqual([]);
    const touching = await listEvents(emu, accessToken, {
      timeMin: "2025-03-03T12:00:00Z",
      timeMax: "2025-03-03T23:00:01Z",
    });
    expect(ids(touching.body)).toHaveLength(1);
  });
});

describe("Google emulator: the demo calendar", () => {
  it("writes the local stack's demo events as Google events", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    seedGoogleDemo(
      emu.control,
      USER,
      [
        {
          uid: "a@demo",
          summary: "Stand-up",
          start: T0 + 20_000,
          end: T0 + 50_000,
          busyStatus: "BUSY",
        },
        {
          uid: "b@demo",
          summary: "Lunch?",
          start: T0 + 60_000,
          end: T0 + 120_000,
          busyStatus: "FREE",
        },
        {
          uid: "c@demo",
          summary: "Out of office",
          start: 0,
          end: 0,
          allDay: { start: "2025-03-04", end: "2025-03-05" },
          busyStatus: "OOF",
        },
      ],
      "Europe/Berlin",
    );
    const r = await listEvents(emu, accessToken, {
      timeMin: "2025-03-03T00:00:00Z",
      singleEvents: "true",
      orderBy: "startTime",
    });
    expect(items(r.body).map((e) => [e.id, e.summary, e.eventType, e.transparency])).toEqual([
      [demoEventId("a@demo"), "Stand-up", "default", undefined],
      [demoEventId("b@demo"), "Lunch?", "default", "transparent"],
      [demoEventId("c@demo"), "Out of office", "outOfOffice", undefined],
    ]);
    expect(items(r.body)[0]?.start).toEqual({
      dateTime: "2025-03-03T09:00:20+01:00",
      timeZone: "Europe/Berlin",
    });
  });
});
