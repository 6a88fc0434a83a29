import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { advanceTo, type E2e, nowOf, profileOf, setCalls, startE2e, T0 } from "./support";

const S = 1000;
const base = Math.ceil(T0 / S) * S;
const ooo = { start: base + 120 * S, end: base + 20 * 60 * S };

let e: E2e;
beforeAll(async () => {
  e = await startE2e({ U001: { tz: "Europe/Berlin", events: [] } });
});
afterAll(() => e?.close());

describe("a scheduled out-of-office", () => {
  it("is accepted over the admin API", async () => {
    // Act
    const res = await fetch(`${e.url}/admin/users/T0DEMO/U001/ooo`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": e.adminApiKey },
      body: JSON.stringify(ooo),
    });
    // Assess
    expect(res.status).toBe(201);
    const listed = await fetch(`${e.url}/admin/users/T0DEMO/U001/ooo`, {
      headers: { "x-api-key": e.adminApiKey },
    });
    const { entries } = (await listed.json()) as { entries: Array<{ start: number; end: number }> };
    expect(entries).toMatchObject([ooo]);
  });

  it("shows with its 'until' from its start, expiring at its end", async () => {
    // Act
    await advanceTo(e, ooo.start + 2 * S);
    // Assess
    const profile = await profileOf(e, "U001");
    // Ends 12:19 Berlin, not at midnight, so the time shows (with the day unless the app
    // passes the instant it is shown; see outOfOfficeText).
    expect(profile.status_text).toMatch(/^Out of office until (Mon, 10 Mar )?12:19$/);
    expect(profile.status_expiration).toBe(ooo.end / S);
    const calls = await setCalls(e, "U001");
    expect(calls).toHaveLength(1);
    console.log(
      `e2e: out-of-office "${profile.status_text}" set ${(calls[0]?.at ?? Number.NaN) - ooo.start} ms after its start`,
    );
  });

  it("clears at its end", async () => {
    // Act
    await advanceTo(e, ooo.end + 5 * S);
    // Assess
    expect(await profileOf(e, "U001")).toMatchObject({
      status_text: "",
      status_emoji: "",
      status_expiration: 0,
    });
    expect(await setCalls(e, "U001")).toHaveLength(1);
  });

  it("refuses the admin API without the key", async () => {
    // Act
    const res = await fetch(`${e.url}/admin/users/T0DEMO/U001/ooo`);
    // Assess
    expect(res.status).toBe(401);
  });
});

describe("the local control surface", () => {
  const post = (path: string, body: string) =>
    fetch(`${e.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });

  it("refuses to move the clock backwards, and leaves it where it was", async () => {
    // Prepare
    const before = await nowOf(e);
    // Act
    const res = await post("/_local/clock", JSON.stringify({ to: before - 1000 }));
    // Assess
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: "invalid_request",
      message: `the clock only moves forward; it is ${before} now`,
    });
    expect(await nowOf(e)).toBe(before);
  });

  it.each([
    ["not JSON", "tomorrow"],
    ["both fields", JSON.stringify({ to: T0, advanceMs: 1 })],
    ["a negative step", JSON.stringify({ advanceMs: -5 })],
    ["an unknown field", JSON.stringify({ by: 5 })],
  ])("answers 400 with the accepted shapes for %s", async (_what, body) => {
    // Act
    const res = await post("/_local/clock", body);
    // Assess
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/advanceMs.*to/);
  });

  it("moves the clock by a step and says where it is now", async () => {
    // Prepare
    const before = await nowOf(e);
    // Act
    const res = await post("/_local/clock", JSON.stringify({ advanceMs: 1500 }));
    // Assess
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ now: before + 1500 });
  });

  it("lists each source's generic hook with its URL", async () => {
    // Act
    const res = await fetch(`${e.url}/_local/hooks`);
    // Assess
    const { hooks } = (await res.json()) as { hooks: Array<Record<string, string>> };
    expect(hooks).toEqual([
      {
        team: "T0DEMO",
        user: "U001",
        sourceId: "cal1",
        // 128 random bits, not a TEAM.USER.calN pattern anyone could guess.
        channelId: expect.stringMatching(/^[0-9a-f]{32}$/),
        // The channel token: HMAC-SHA256 of the id, base64url.
        secret: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        url: `${e.url}/hooks/generic/${hooks[0]?.channelId}`,
      },
    ]);
  });
});
