import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  advance,
  advanceTo,
  type Call,
  type E2e,
  event,
  profileOf,
  publishAndPush,
  settle,
  startE2e,
  T0,
} from "./support";

/*
 * Do Not Disturb over the local stack on a hand-moved clock: the calendar feeds over HTTP, the
 * emulator's dnd.* methods over HTTP, the person's own snooze set with their own token.
 */

const S = 1000;
const MIN = 60 * S;
const base = Math.ceil(T0 / S) * S;
const TZ = "Europe/Berlin";
const rules = { focus: { dnd: true } };

// U001: a 25-minute focus block, cancelled while it shows; then a meeting (no dnd).
const focus = event("focus", "Focus time", base + MIN, base + 26 * MIN);
const standup = event("standup", "Stand-up", base + 45 * MIN, base + 55 * MIN);
// U002: a 30-minute focus block; the person snoozes for an hour themselves while it shows.
const deep = event("deep", "Deep work", base + MIN, base + 31 * MIN);
// U002: a later focus block the person's own two-hour snooze already covers.
const later = event("later", "Focus", base + 90 * MIN, base + 100 * MIN);
// U001, last: a focus block that lengthens the person's own shorter snooze, then is cancelled.
const review = event("review", "Focus", base + 180 * MIN, base + 210 * MIN);

let e: E2e;
beforeAll(async () => {
  e = await startE2e({
    U001: { tz: TZ, events: [focus, standup], rules },
    U002: { tz: TZ, events: [deep, later], rules },
  });
});
afterAll(() => e?.close());

const state = async (): Promise<{ dnd: Record<string, { snooze_endtime: number }> }> =>
  (await (await fetch(`${e.emulatorUrl}/_emulator/state`)).json()) as {
    dnd: Record<string, { snooze_endtime: number }>;
  };

/** The dnd.* calls the emulator received from Statuspilot's token for `user`. */
async function dndCalls(user: string): Promise<Call[]> {
  const { calls } = (await (await fetch(`${e.emulatorUrl}/_emulator/calls`)).json()) as {
    calls: Call[];
  };
  return calls.filter(
    (c) => c.method.startsWith("dnd.") && c.caller === user && c.app === "A0STATUSPILOT",
  );
}

/** The person snoozing with their own client's token, as the chat client would. */
async function personSnoozes(user: string, minutes: number): Promise<number> {
  const res = await fetch(`${e.serviceBase}/dnd.setSnooze`, {
    method: "POST",
    headers: {
      authorization: `Bearer xoxp-demo-${user}`,
      "content-type": "application/x-www-form-urlencoded",
    },
    body: `num_minutes=${minutes}`,
  });
  const body = (await res.json()) as { ok: boolean; snooze_endtime: number; error?: string };
  if (!body.ok) throw new Error(`dnd.setSnooze failed: ${body.error}`);
  await settle(e);
  return body.snooze_endtime;
}

describe("Do Not Disturb over the local stack", () => {
  it("snoozes once, within 2 s of a dnd block's start, for its length in minutes", async () => {
    // Act
    await advanceTo(e, focus.start - S);
    const before = await dndCalls("U001");
    await advanceTo(e, focus.start + 2 * S);
    await advance(e, 3 * MIN);
    // Assess
    const sets = (await dndCalls("U001")).filter((c) => c.method === "dnd.setSnooze");
    expect(before).toEqual([]);
    expect(sets).toHaveLength(1);
    const lateness = (sets[0]?.at ?? Number.NaN) - focus.start;
    console.log(`e2e: snooze set ${lateness} ms after the dnd block's start (clock time)`);
    expect(lateness).toBeGreaterThanOrEqual(0);
    expect(lateness).toBeLessThan(2 * S);
    expect(sets[0]?.params).toMatchObject({ num_minutes: "25" });
    expect((await state()).dnd.U001?.snooze_endtime).toBe(focus.end / S);
    expect((await profileOf(e, "U001")).status_expiration).toBe(focus.end / S);
  });

  it("ends its own snooze when the block is cancelled", async () => {
    // Act
    await publishAndPush(e, "U001", TZ, [{ ...focus, cancelled: true }, standup]);
    await advance(e, 12 * S);
    // Assess
    const ends = (await dndCalls("U001")).filter((c) => c.method === "dnd.endSnooze");
    expect(ends).toHaveLength(1);
    expect((await state()).dnd.U001).toBeUndefined();
  });

  it("never ends a snooze the person set over ours, when the block is cancelled", async () => {
    // Prepare: ours is on (U002's block started with U001's); the person snoozes an hour.
    const ours = (await dndCalls("U002")).filter((c) => c.method === "dnd.setSnooze");
    await advanceTo(e, deep.start + 15 * MIN);
    const theirs = await personSnoozes("U002", 60);
    // Act
    await publishAndPush(e, "U002", TZ, [{ ...deep, cancelled: true }, later]);
    await advance(e, 12 * S);
    // Assess
    expect(ours).toHaveLength(1);
    const calls = await dndCalls("U002");
    expect(calls.filter((c) => c.method === "dnd.endSnooze")).toEqual([]);
    expect((await state()).dnd.U002?.snooze_endtime).toBe(theirs);
  });

  it("makes no DND call for a block without dnd", async () => {
    // Prepare
    const before = (await dndCalls("U001")).length;
    // Act
    await advanceTo(e, standup.start + 5 * S);
    // Assess
    expect((await profileOf(e, "U001")).status_expiration).toBe(standup.end / S);
    expect(await dndCalls("U001")).toHaveLength(before);
  });

  it("does not cut short a longer snooze of the person's own when a dnd block starts", async () => {
    // Prepare: the hour-long snooze ran out; the person snoozes two hours before `later`.
    await advanceTo(e, later.start - 5 * MIN);
    const theirs = await personSnoozes("U002", 120);
    const setsBefore = (await dndCalls("U002")).filter((c) => c.method === "dnd.setSnooze");
    // Act
    await advanceTo(e, later.start + 5 * S);
    await publishAndPush(e, "U002", TZ, [{ ...later, cancelled: true }]);
    await advance(e, 12 * S);
    // Assess: a status, but no snooze of ours, and theirs still on.
    const calls = await dndCalls("U002");
    expect(calls.filter((c) => c.method === "dnd.setSnooze")).toHaveLength(setsBefore.length);
    expect(calls.filter((c) => c.method === "dnd.endSnooze")).toEqual([]);
    expect((await state()).dnd.U002?.snooze_endtime).toBe(theirs);
  });

  it("sets the person's own shorter snooze back, not ended, when the block that lengthened it is cancelled", async () => {
    // Prepare: 20 minutes of the person's own, from 5 minutes before a 30-minute focus block.
    await publishAndPush(e, "U001", TZ, [review]);
    await advanceTo(e, review.start - 5 * MIN);
    const theirs = await personSnoozes("U001", 20);
    await advanceTo(e, review.start + 5 * S);
    const lengthened = (await state()).dnd.U001?.snooze_endtime;
    // Act: cancelled 10 minutes in, with the person's own 5 minutes from its end.
    await advanceTo(e, review.start + 10 * MIN);
    await publishAndPush(e, "U001", TZ, [{ ...review, cancelled: true }]);
    await advance(e, 12 * S);
    // Assess: theirs is on again, to the minute rounded up; ours was never ended.
    const calls = (await dndCalls("U001")).filter((c) => c.at >= review.start - 5 * MIN);
    expect(lengthened).toBe(review.end / S);
    expect(calls.filter((c) => c.method === "dnd.endSnooze")).toEqual([]);
    const sets = calls
      .filter((c) => c.method === "dnd.setSnooze")
      .map((c) => c.params?.num_minutes);
    expect(sets).toEqual(["30", "5"]);
    const restored = (await state()).dnd.U001?.snooze_endtime ?? 0;
    expect(restored).toBeGreaterThanOrEqual(theirs);
    expect(restored).toBeLessThan(theirs + 60);
  });
});
