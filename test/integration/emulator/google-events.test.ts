import { describe, expect, it } from "vitest";
import { connect, ids, items, type Json, listEvents, setup, USER } from "./google-harness";

// events.list over real HTTP. Expectations restate the Calendar API v3 reference and guides:
// pages of at most maxResults with nextPageToken, nextSyncToken only on the last page;
// singleEvents expands recurrences into instances `<id>_<start>` with recurringEventId and
// originalStartTime; timeMin/timeMax bound the end/start exclusively; an incremental sync
// returns what changed, cancelled and deleted events as `status: cancelled`.

const at = (h: number, m = 0, day = 3) =>
  `2025-03-${String(day).padStart(2, "0")}T${String(h).padStart(2, "0")}:${String(m).padStart(2, "0")}:00Z`;
const timed = (summary: string, startIso: string, endIso: string, extra: Json = {}) => ({
  summary,
  start: { dateTime: startIso, timeZone: "Europe/Berlin" },
  end: { dateTime: endIso, timeZone: "Europe/Berlin" },
  ...extra,
});
const DAY_WINDOW = { timeMin: "2025-03-03T00:00:00Z", timeMax: "2025-03-04T00:00:00Z" };

async function listAll(
  emu: Awaited<ReturnType<typeof setup>>["emu"],
  tok: string,
  query: Record<string, string>,
): Promise<{ pages: Json[]; all: Json[] }> {
  const pages: Json[] = [];
  let pageToken: string | undefined;
  do {
    const r = await listEvents(emu, tok, { ...query, ...(pageToken ? { pageToken } : {}) });
    expect(r.status).toBe(200);
    pages.push(r.body);
    pageToken = r.body.nextPageToken as string | undefined;
  } while (pageToken);
  return { pages, all: pages.flatMap(items) };
}

describe("Google emulator: events.list", () => {
  it("pages by maxResults: nextPageToken on all but the last page, nextSyncToken only on the last", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    for (let i = 0; i < 7; i++)
      emu.control.addEvent(USER, timed(`m${i}`, at(9 + i), at(9 + i, 30)));
    const { pages, all } = await listAll(emu, accessToken, {
      ...DAY_WINDOW,
      singleEvents: "true",
      maxResults: "3",
    });
    expect(pages.map((p) => items(p).length)).toEqual([3, 3, 1]);
    expect(pages.map((p) => typeof p.nextPageToken)).toEqual(["string", "string", "undefined"]);
    expect(pages.map((p) => typeof p.nextSyncToken)).toEqual(["undefined", "undefined", "string"]);
    expect(new Set(all.map((e) => e.summary))).toEqual(
      new Set(["m0", "m1", "m2", "m3", "m4", "m5", "m6"]),
    );
    expect(pages[0]).toMatchObject({
      kind: "calendar#events",
      summary: USER,
      timeZone: "Europe/Berlin",
    });
  });

  it("an unknown page token is a 400", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    const r = await listEvents(emu, accessToken, { pageToken: "nonsense" });
    expect(r.status).toBe(400);
  });

  it("timeMin bounds the end and timeMax the start, both exclusive", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    emu.control.addEvent(USER, timed("ends-at-min", at(7), at(8)));
    emu.control.addEvent(USER, timed("straddles-min", at(7, 30), at(8, 30)));
    emu.control.addEvent(USER, timed("starts-at-max", at(10), at(11)));
    emu.control.addEvent(USER, timed("inside", at(9), at(9, 30)));
    const r = await listEvents(emu, accessToken, {
      timeMin: at(8),
      timeMax: at(10),
      singleEvents: "true",
      orderBy: "startTime",
    });
    expect(items(r.body).map((e) => e.summary)).toEqual(["straddles-min", "inside"]);
  });

  it("an empty range answers the documented 400 timeRangeEmpty", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    const r = await listEvents(emu, accessToken, { timeMin: at(10), timeMax: at(10) });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error: {
        errors: [
          {
            domain: "calendar",
            reason: "timeRangeEmpty",
            message: "The specified time range is empty.",
            locationType: "parameter",
            location: "timeMax",
          },
        ],
        code: 400,
        message: "The specified time range is empty.",
      },
    });
  });

  it("orderBy=startTime needs singleEvents=true", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    const r = await listEvents(emu, accessToken, { orderBy: "startTime" });
    expect(r.status).toBe(400);
  });

  it("singleEvents expands a daily series, keeping 09:00 Berlin across the DST change", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    const master = emu.control.addEvent(USER, {
      id: "standup0001",
      summary: "Standup",
      start: { dateTime: "2025-03-28T09:00:00+01:00", timeZone: "Europe/Berlin" },
      end: { dateTime: "2025-03-28T09:15:00+01:00", timeZone: "Europe/Berlin" },
      recurrence: ["RRULE:FREQ=DAILY;COUNT=5"],
    });
    const r = await listEvents(emu, accessToken, {
      timeMin: "2025-03-01T00:00:00Z",
      timeMax: "2025-05-01T00:00:00Z",
      singleEvents: "true",
      orderBy: "startTime",
    });
    // Berlin is UTC+1 until 30 March 2025 02:00, then UTC+2.
    expect(ids(r.body)).toEqual([
      "standup0001_20250328T080000Z",
      "standup0001_20250329T080000Z",
      "standup0001_20250330T070000Z",
      "standup0001_20250331T070000Z",
      "standup0001_20250401T070000Z",
    ]);
    const third = items(r.body)[2] as Json;
    expect(third).toMatchObject({
      recurringEventId: master.id,
      summary: "Standup",
      originalStartTime: { dateTime: "2025-03-30T09:00:00+02:00", timeZone: "Europe/Berlin" },
      start: { dateTime: "2025-03-30T09:00:00+02:00", timeZone: "Europe/Berlin" },
      end: { dateTime: "2025-03-30T09:15:00+02:00" },
    });
    expect(third.recurrence).toBeUndefined();
    // Without singleEvents: the series itself, with its recurrence.
    const series = await listEvents(emu, accessToken, { timeMin: "2025-03-01T00:00:00Z" });
    expect(ids(series.body)).toEqual(["standup0001"]);
    expect(items(series.body)[0]?.recurrence).toEqual(["RRULE:FREQ=DAILY;COUNT=5"]);
  });

  it("a weekly series on two weekdays until a date", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    emu.control.addEvent(USER, {
      id: "mothu00001",
      start: { dateTime: "2025-03-03T10:00:00Z", timeZone: "UTC" },
      end: { dateTime: "2025-03-03T11:00:00Z", timeZone: "UTC" },
      recurrence: ["RRULE:FREQ=WEEKLY;BYDAY=MO,TH;UNTIL=20250313T235959Z"],
    });
    const r = await listEvents(emu, accessToken, {
      timeMin: "2025-03-01T00:00:00Z",
      singleEvents: "true",
    });
    expect(ids(r.body)).toEqual([
      "mothu00001_20250303T100000Z",
      "mothu00001_20250306T100000Z",
      "mothu00001_20250310T100000Z",
      "mothu00001_20250313T100000Z",
    ]);
  });

  it("writes the fields the product maps: eventType, transparency, visibility, attendees' self, all-day dates", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    emu.control.addEvent(
      USER,
      timed("Deep work", at(9), at(11), { eventType: "focusTime", visibility: "private" }),
    );
    emu.control.addEvent(USER, timed("FYI", at(12), at(13), { transparency: "transparent" }));
    emu.control.addEvent(
      USER,
      timed("Review", at(14), at(15), {
        organizer: { email: "bob@example.com" },
        attendees: [
          { email: "bob@example.com", responseStatus: "accepted" },
          { email: "ADA@example.com", responseStatus: "declined" },
        ],
      }),
    );
    emu.control.addEvent(USER, {
      summary: "Holiday",
      eventType: "outOfOffice",
      start: { date: "2025-03-03" },
      end: { date: "2025-03-04" },
    });
    const r = await listEvents(emu, accessToken, { ...DAY_WINDOW, singleEvents: "true" });
    const bySummary = new Map(items(r.body).map((e) => [e.summary, e]));
    expect(bySummary.get("Deep work")).toMatchObject({
      eventType: "focusTime",
      visibility: "private",
      status: "confirmed",
    });
    expect(bySummary.get("FYI")).toMatchObject({
      transparency: "transparent",
      eventType: "default",
    });
    expect(bySummary.get("Review")?.attendees).toEqual([
      { email: "bob@example.com", organizer: true, responseStatus: "accepted" },
      { email: "ada@example.com", self: true, responseStatus: "declined" },
    ]);
    expect(bySummary.get("Review")?.organizer).toEqual({ email: "bob@example.com" });
    expect(bySummary.get("Holiday")).toMatchObject({
      eventType: "outOfOffice",
      start: { date: "2025-03-03" },
      end: { date: "2025-03-04" },
    });
  });

  it("cancelled events are left out unless showDeleted", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    const e = emu.control.addEvent(USER, timed("Gone", at(9), at(10)));
    emu.control.cancelEvent(USER, String(e.id));
    expect(ids((await listEvents(emu, accessToken, DAY_WINDOW)).body)).toEqual([]);
    const shown = await listEvents(emu, accessToken, { ...DAY_WINDOW, showDeleted: "true" });
    expect(items(shown.body)).toMatchObject([{ id: e.id, status: "cancelled" }]);
  });
});

describe("Google emulator: sync tokens", () => {
  it("an incremental sync returns exactly what changed: added, edited, cancelled, deleted", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    const edited = emu.control.addEvent(USER, timed("Edited", at(9), at(10)));
    const cancelled = emu.control.addEvent(USER, timed("Cancelled", at(11), at(12)));
    const deleted = emu.control.addEvent(USER, timed("Deleted", at(13), at(14)));
    emu.control.addEvent(USER, timed("Untouched", at(15), at(16)));
    const full = await listAll(emu, accessToken, {
      ...DAY_WINDOW,
      singleEvents: "true",
      maxResults: "2",
    });
    expect(full.all).toHaveLength(4);
    const syncToken = String(full.pages.at(-1)?.nextSyncToken);

    const added = emu.control.addEvent(USER, timed("Added", at(17), at(18)));
    emu.control.editEvent(USER, String(edited.id), { summary: "Edited!" });
    emu.control.cancelEvent(USER, String(cancelled.id));
    emu.control.deleteEvent(USER, String(deleted.id));

    const inc = await listEvents(emu, accessToken, { syncToken, singleEvents: "true" });
    expect(inc.status).toBe(200);
    const byId = new Map(items(inc.body).map((e) => [e.id, e]));
    expect([...byId.keys()].sort()).toEqual([added.id, edited.id, cancelled.id, deleted.id].sort());
    expect(byId.get(edited.id)).toMatchObject({ summary: "Edited!", status: "confirmed" });
    expect(byId.get(cancelled.id)).toMatchObject({ summary: "Cancelled", status: "cancelled" });
    expect(byId.get(deleted.id)).toMatchObject({ id: deleted.id, status: "cancelled" });
    const next = String(inc.body.nextSyncToken);
    const quiet = await listEvents(emu, accessToken, { syncToken: next, singleEvents: "true" });
    expect(items(quiet.body)).toEqual([]);
    expect(typeof quiet.body.nextSyncToken).toBe("string");
  });

  it("a cancelled instance, an edited instance and a moved series come back as instances", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    emu.control.addEvent(USER, {
      id: "series0001",
      summary: "Daily",
      start: { dateTime: "2025-03-03T10:00:00Z" },
      end: { dateTime: "2025-03-03T10:30:00Z" },
      recurrence: ["RRULE:FREQ=DAILY;COUNT=3"],
    });
    const window = {
      timeMin: "2025-03-03T00:00:00Z",
      timeMax: "2025-03-10T00:00:00Z",
      singleEvents: "true",
    };
    const t1 = String((await listEvents(emu, accessToken, window)).body.nextSyncToken);
    emu.control.cancelEvent(USER, "series0001_20250304T100000Z");
    emu.control.editEvent(USER, "series0001_20250305T100000Z", {
      summary: "Daily (moved)",
      // Written in the calendar's zone, since the event names none.
      start: { dateTime: "2025-03-05T12:00:00+01:00" },
      end: { dateTime: "2025-03-05T11:30:00Z" },
    });
    const inc = await listEvents(emu, accessToken, { syncToken: t1, singleEvents: "true" });
    const byId = new Map(items(inc.body).map((e) => [e.id, e]));
    expect(byId.get("series0001_20250304T100000Z")).toMatchObject({
      status: "cancelled",
      recurringEventId: "series0001",
    });
    expect(byId.get("series0001_20250305T100000Z")).toMatchObject({
      status: "confirmed",
      summary: "Daily (moved)",
      // Written in the calendar's zone, since the event names none.
      start: { dateTime: "2025-03-05T12:00:00+01:00" },
    });
    // Moving the whole series: the old instances' ids come back cancelled.
    const t2 = String(inc.body.nextSyncToken);
    emu.control.editEvent(USER, "series0001", {
      start: { dateTime: "2025-03-03T12:00:00Z" },
      end: { dateTime: "2025-03-03T12:30:00Z" },
    });
    const moved = await listEvents(emu, accessToken, { syncToken: t2, singleEvents: "true" });
    const states = new Map(items(moved.body).map((e) => [e.id, e.status]));
    expect(states.get("series0001_20250303T100000Z")).toBe("cancelled");
    expect(states.get("series0001_20250303T120000Z")).toBe("confirmed");
  });

  it("an expired sync token answers the documented 410 fullSyncRequired", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    const syncToken = String((await listEvents(emu, accessToken, {})).body.nextSyncToken);
    emu.control.faults({ expireSyncTokens: { calendar: USER } });
    const r = await listEvents(emu, accessToken, { syncToken });
    expect(r.status).toBe(410);
    expect(r.body).toEqual({
      error: {
        errors: [
          {
            domain: "global",
            reason: "fullSyncRequired",
            message: "Sync token is no longer valid, a full sync is required.",
            locationType: "parameter",
            location: "syncToken",
          },
        ],
        code: 410,
        message: "Sync token is no longer valid, a full sync is required.",
      },
    });
    // A full sync gives a token that works again.
    const fresh = String((await listEvents(emu, accessToken, {})).body.nextSyncToken);
    expect((await listEvents(emu, accessToken, { syncToken: fresh })).status).toBe(200);
  });

  it("a sync token cannot go with timeMin, and a foreign token is a 400", async () => {
    const { emu } = await setup();
    const { accessToken } = await connect(emu);
    const syncToken = String((await listEvents(emu, accessToken, {})).body.nextSyncToken);
    expect((await listEvents(emu, accessToken, { syncToken, timeMin: at(0) })).status).toBe(400);
    expect((await listEvents(emu, accessToken, { syncToken: "garbage" })).status).toBe(400);
  });
});
