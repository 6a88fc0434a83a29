import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  advanceTo,
  type E2e,
  event,
  liveLog,
  profileOf,
  publishAndPush,
  setCalls,
  startE2e,
  statuspilotProfileSets,
  T0,
} from "./support";

const S = 1000;
const base = Math.ceil(T0 / S) * S;
const standup = event("standup", "Stand-up", base + 60 * S, base + 120 * S);
const review = event("review", "Review", base + 300 * S, base + 420 * S);
const TZ = "Europe/Berlin";

let e: E2e;
beforeAll(async () => {
  e = await startE2e({ U001: { tz: TZ, events: [standup, review] } });
});
afterAll(() => e?.close());

describe("a meeting over the local stack", () => {
  it("sets the status at the meeting's start, expiring at its end", async () => {
    // Prepare
    await advanceTo(e, standup.start - S);
    const before = await profileOf(e, "U001");
    // Act
    await advanceTo(e, standup.start + 5 * S);
    // Assess
    expect(before.status_text).toBe("");
    const calls = await setCalls(e, "U001");
    expect(calls).toHaveLength(1);
    const lateness = (calls[0]?.at ?? Number.NaN) - standup.start;
    console.log(`e2e: meeting status set ${lateness} ms after the block start (clock time)`);
    expect(lateness).toBeGreaterThanOrEqual(0);
    expect(lateness).toBeLessThan(1000);
    const profile = await profileOf(e, "U001");
    expect(profile.status_text).not.toBe("");
    expect(profile.status_emoji).toMatch(/^:[a-z0-9_+-]+:$/);
    expect(profile.status_expiration).toBe(standup.end / S);
    expect((await liveLog(e)).at(-1)).toBe(
      `11:00:01 U001 set "${profile.status_emoji} ${profile.status_text}" until 11:01:01 (1 call)`,
    );
  });

  it("is cleared by the service's own expiry at the end, with no second call", async () => {
    // Act
    await advanceTo(e, standup.end + 30 * S);
    // Assess
    const profile = await profileOf(e, "U001");
    expect(profile).toMatchObject({ status_text: "", status_emoji: "", status_expiration: 0 });
    expect(await setCalls(e, "U001")).toHaveLength(1);
    expect((await liveLog(e)).at(-1)).toBe("11:01:01 U001 expired (service cleared it, 0 calls)");
  });

  it("clears text and emoji together at once when the showing meeting is cancelled", async () => {
    // Prepare
    await advanceTo(e, review.start + 5 * S);
    const showing = await profileOf(e, "U001");
    // Act
    const pushedAt = await publishAndPush(e, "U001", TZ, [standup, { ...review, cancelled: true }]);
    await advance(e, 12 * S);
    // Assess
    expect(showing.status_expiration).toBe(review.end / S);
    const calls = await setCalls(e, "U001");
    expect(calls).toHaveLength(3);
    const clearedAfter = (calls[2]?.at ?? Number.NaN) - pushedAt;
    console.log(`e2e: cancelled meeting cleared ${clearedAfter} ms after the push (clock time)`);
    expect(clearedAfter).toBeLessThanOrEqual(11 * S);
    expect(await profileOf(e, "U001")).toMatchObject({
      status_text: "",
      status_emoji: "",
      status_expiration: 0,
    });
    // What went over the wire: every clear we sent names both fields empty and expiration 0.
    const sent = await statuspilotProfileSets(e, "U001");
    const clears = sent.filter((p) => p.status_text === "" || p.status_emoji === "");
    expect(sent).toHaveLength(3);
    expect(clears).toEqual([{ status_text: "", status_emoji: "", status_expiration: 0 }]);
  });

  it("loses no queue message on the way", async () => {
    // Act
    const res = await fetch(`${e.url}/_local/queues`);
    const body = (await res.json()) as {
      transition: { deadLettered: number };
      sync: { deadLettered: number };
    };
    // Assess
    expect(body.transition.deadLettered + body.sync.deadLettered).toBe(0);
  });
});
