import { afterEach, describe, expect, it } from "vitest";
import { type RunningMicrosoftEmulator, startMicrosoftEmulator } from "#emulator/microsoft/server";
import { ManualClock } from "#lib/core/clock";
import { MS_CLIENT, MS_T0 as T0, MS_USER as USER } from "./microsoft-demo";

// Graph's calendar reads over real HTTP, checked against the documentation: calendarView needs
// startDateTime and endDateTime, pages by `@odata.nextLink`, times in UTC under
// `Prefer: outlook.timezone="UTC"`; delta rounds end with `@odata.deltaLink`, whose next use
// returns only the changes (removals as `@removed`); throttling is 429 with Retry-After and
// Graph's error body.

const HOUR = 3_600_000;
const CLIENT = MS_CLIENT.clientId;
const running: RunningMicrosoftEmulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

async function setup(scopes = ["offline_access", "Calendars.Read"]) {
  const clock = new ManualClock(T0);
  const emu = await startMicrosoftEmulator({ clock, expirySweepMs: 0 });
  running.push(emu);
  const { access_token } = emu.issueTokens(CLIENT, USER, scopes) as { access_token: string };
  const get = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, { headers: { authorization: `Bearer ${access_token}`, ...headers } });
  return { emu, clock, get };
}

const windowQuery = (from: number, to: number, extra = "") =>
  `startDateTime=${new Date(from).toISOString()}&endDateTime=${new Date(to).toISOString()}${extra}`;

interface Page {
  value: Array<Record<string, unknown>>;
  "@odata.nextLink"?: string;
  "@odata.deltaLink"?: string;
}

describe("Microsoft Graph emulator: reads", () => {
  it("lists the window's events in UTC and pages them by @odata.nextLink", async () => {
    const { emu, get } = await setup();
    for (let i = 0; i < 5; i++) {
      emu.createEvent(USER, {
        subject: `m${i}`,
        start: T0 + i * HOUR,
        end: T0 + i * HOUR + 1_800_000,
      });
    }
    emu.createEvent(USER, { subject: "outside", start: T0 + 48 * HOUR, end: T0 + 49 * HOUR });
    const first = await get(
      `${emu.graphBaseUrl}/me/calendarView?${windowQuery(T0, T0 + 24 * HOUR, "&$top=2")}`,
      {
        prefer: 'outlook.timezone="UTC"',
      },
    );
    expect(first.status).toBe(200);
    expect(first.headers.get("preference-applied")).toBe('outlook.timezone="UTC"');
    const subjects: string[] = [];
    let page = (await first.json()) as Page;
    expect(page.value[0]?.start).toEqual({
      dateTime: "2026-11-24T08:00:00.0000000",
      timeZone: "UTC",
    });
    for (;;) {
      subjects.push(...page.value.map((e) => String(e.subject)));
      const next = page["@odata.nextLink"];
      if (!next) break;
      page = (await (await get(next)).json()) as Page;
    }
    expect(subjects).toEqual(["m0", "m1", "m2", "m3", "m4"]);
  });

  it("refuses calendarView without a window, a call without a token, and one without Calendars.Read", async () => {
    const { emu, get } = await setup(["User.Read"]);
    const noToken = await fetch(
      `${emu.graphBaseUrl}/me/calendarView?${windowQuery(T0, T0 + HOUR)}`,
    );
    expect(noToken.status).toBe(401);
    expect(((await noToken.json()) as { error: { code: string } }).error.code).toBe(
      "InvalidAuthenticationToken",
    );
    const denied = await get(`${emu.graphBaseUrl}/me/calendarView?${windowQuery(T0, T0 + HOUR)}`);
    expect(denied.status).toBe(403);
    const { get: reader } = await setup();
    const noWindow = await reader(`${running[1]?.graphBaseUrl}/me/calendarView`);
    expect(noWindow.status).toBe(400);
    expect(((await noWindow.json()) as { error: { code: string } }).error.code).toBe(
      "ErrorInvalidParameter",
    );
  });

  it("answers an expired access token 401, by the emulator's clock", async () => {
    const { emu, clock, get } = await setup();
    clock.advance(2 * HOUR);
    const res = await get(`${emu.graphBaseUrl}/me/calendarView?${windowQuery(T0, T0 + HOUR)}`);
    expect(res.status).toBe(401);
  });

  it("throttles with 429, Retry-After and Graph's error body", async () => {
    const { emu, get } = await setup();
    emu.setFaults({ throttleNext: 1, retryAfterS: 7 });
    const url = `${emu.graphBaseUrl}/me/calendarView?${windowQuery(T0, T0 + HOUR)}`;
    const limited = await get(url);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("7");
    const body = (await limited.json()) as {
      error: { code: string; message: string; innerError: Record<string, unknown> };
    };
    expect(body.error.code).toBe("TooManyRequests");
    expect(body.error.innerError["request-id"]).toBeTypeOf("string");
    expect((await get(url)).status).toBe(200);
  });

  it("delta: a full round, then only the changes, removals as @removed", async () => {
    const { emu, get } = await setup();
    const a = emu.createEvent(USER, { subject: "a", start: T0 + HOUR, end: T0 + 2 * HOUR });
    const b = emu.createEvent(USER, { subject: "b", start: T0 + 3 * HOUR, end: T0 + 4 * HOUR });
    emu.createEvent(USER, { subject: "c", start: T0 + 5 * HOUR, end: T0 + 6 * HOUR });
    const seen: string[] = [];
    let page = (await (
      await get(`${emu.graphBaseUrl}/me/calendarView/delta?${windowQuery(T0, T0 + 24 * HOUR)}`, {
        prefer: "odata.maxpagesize=2",
      })
    ).json()) as Page;
    while (page["@odata.nextLink"]) {
      seen.push(...page.value.map((e) => String(e.subject)));
      page = (await (await get(page["@odata.nextLink"])).json()) as Page;
    }
    seen.push(...page.value.map((e) => String(e.subject)));
    expect(seen.sort()).toEqual(["a", "b", "c"]);
    const deltaLink = page["@odata.deltaLink"] ?? "";
    expect(deltaLink).toContain("$deltatoken=");

    const quiet = (await (await get(deltaLink)).json()) as Page;
    expect(quiet.value).toEqual([]);

    emu.updateEvent(USER, a, { subject: "a2" });
    emu.deleteEvent(USER, b);
    emu.createEvent(USER, { subject: "far", start: T0 + 72 * HOUR, end: T0 + 73 * HOUR });
    const changes = (await (await get(quiet["@odata.deltaLink"] ?? "")).json()) as Page;
    const byId = new Map(changes.value.map((e) => [String(e.id), e]));
    expect(byId.size).toBe(2);
    expect(byId.get(a)?.subject).toBe("a2");
    expect(byId.get(b)?.["@removed"]).toEqual({ reason: "deleted" });
  });

  it("delta: an expired sync state answers 410", async () => {
    const { emu, get } = await setup();
    const round = (await (
      await get(`${emu.graphBaseUrl}/me/calendarView/delta?${windowQuery(T0, T0 + HOUR)}`)
    ).json()) as Page;
    emu.setFaults({ expireDeltaNext: 1 });
    expect((await get(round["@odata.deltaLink"] ?? "")).status).toBe(410);
  });
});
