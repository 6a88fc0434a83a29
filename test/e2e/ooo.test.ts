import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type E2e, profileOf, setCalls, startE2e, T0 } from "./support";

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
    const res = await fetch(`${e.stack.url}/admin/users/T0DEMO/U001/ooo`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": e.stack.adminApiKey },
      body: JSON.stringify(ooo),
    });
    // Assess
    expect(res.status).toBe(201);
    const listed = await fetch(`${e.stack.url}/admin/users/T0DEMO/U001/ooo`, {
      headers: { "x-api-key": e.stack.adminApiKey },
    });
    const { entries } = (await listed.json()) as { entries: Array<{ start: number; end: number }> };
    expect(entries).toMatchObject([ooo]);
  });

  it("shows with its 'until' from its start, expiring at its end", async () => {
    // Act
    await e.stack.advanceTo(ooo.start + 2 * S);
    // Assess
    const profile = await profileOf(e, "U001");
    expect(profile.status_text).toMatch(/until/i);
    expect(profile.status_expiration).toBe(ooo.end / S);
    const calls = await setCalls(e, "U001");
    expect(calls).toHaveLength(1);
    console.log(
      `e2e: out-of-office "${profile.status_text}" set ${(calls[0]?.at ?? Number.NaN) - ooo.start} ms after its start`,
    );
  });

  it("clears at its end", async () => {
    // Act
    await e.stack.advanceTo(ooo.end + 5 * S);
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
    const res = await fetch(`${e.stack.url}/admin/users/T0DEMO/U001/ooo`);
    // Assess
    expect(res.status).toBe(401);
  });
});
