import { describe, expect, it } from "vitest";
import type { StatusValue, UserKey } from "#lib/core/types";
import { dynaliteForFile } from "../../support/dynalite";
import { block, type Harness, harness, MIN, T0 } from "./harness";

/*
 * A stored manual override is a belief: while one stands, a transition that would write reads
 * the profile first, with verifyBeforeWrite off too; so does a user's change that ties with our
 * write in one second. The fake gateway's profile is what the user and our writes made it;
 * events reach the reconciler only when a test sends them.
 */

const dynamo = dynaliteForFile();

const EMPTY: StatusValue = { text: "", emoji: "", expiration: 0 };
/** As the chat client sets it: no expiry. */
const dog: StatusValue = { text: "Walking the dog", emoji: ":dog:", expiration: 0 };
const S = (ms: number) => Math.floor(ms / 1000);

let events = 0;
/** The user changes their status: on the profile, and (unless lost) in a user_change. */
async function userSets(
  h: Harness,
  key: UserKey,
  status: StatusValue,
  opts: { lost?: boolean; eventTime?: number } = {},
): Promise<void> {
  h.gateway.userSets(key, status);
  if (opts.lost === true) return;
  await h.pilot.recordUserChange({
    eventId: `Ev-${++events}`,
    eventTime: opts.eventTime ?? S(h.clock.now()),
    key,
    status,
  });
}

const meeting = block(T0 - MIN, T0 + 10 * MIN);
const review = block(T0 + 30 * MIN, T0 + 60 * MIN, "focus");

describe("a manual override without expiry, verifyBeforeWrite off", () => {
  it("still wakes at the next block's start, reads, and sets the block when the user's clear was lost", async () => {
    // Prepare: the meeting shows; the user sets their own status, then clears it (lost).
    const h = harness(dynamo, { verifyBeforeWrite: false });
    const key = await h.addUser("W1");
    await h.pilot.applyTimeline(key, [meeting, review], { sourceId: "work" });
    h.clock.advance(MIN);
    await userSets(h, key, dog);
    h.clock.advance(MIN);
    await userSets(h, key, EMPTY, { lost: true });
    const scheduled = await h.store.getStatus(key);
    // Act
    h.clock.set(review.start);
    const outcome = await h.pilot.reconcileUser(key);
    // Assess
    expect(scheduled?.nextTransitionAt).toBe(review.start);
    expect(outcome).toEqual({
      kind: "set",
      text: "Focus time",
      emoji: ":headphones:",
      expiration: S(review.end),
    });
    expect(h.gateway.shown(key).text).toBe("Focus time");
    expect(h.gateway.reads).toHaveLength(1);
    expect((await h.pilot.getStatusView(key))?.override).toBeUndefined();
  });

  it("reads once at the block's start and writes nothing when the status is still there", async () => {
    // Prepare
    const h = harness(dynamo, { verifyBeforeWrite: false });
    const key = await h.addUser("W2");
    await h.pilot.applyTimeline(key, [meeting, review], { sourceId: "work" });
    h.clock.advance(MIN);
    await userSets(h, key, dog);
    // Act
    h.clock.set(review.start);
    const outcome = await h.pilot.reconcileUser(key);
    // Assess
    expect(outcome).toEqual({ kind: "leave", reason: "manual override" });
    expect(h.gateway.shown(key)).toEqual(dog);
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual(["In a meeting"]);
    expect(h.gateway.reads).toHaveLength(1);
  });

  it("reads nothing while no override stands: one set per block", async () => {
    // Prepare
    const h = harness(dynamo, { verifyBeforeWrite: false });
    const key = await h.addUser("W3");
    // Act
    await h.pilot.applyTimeline(key, [meeting, review], { sourceId: "work" });
    h.clock.set(review.start);
    await h.pilot.reconcileUser(key);
    // Assess
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual(["In a meeting", "Focus time"]);
    expect(h.gateway.reads).toEqual([]);
  });
});

describe("a user's change in the second of our write, verifyBeforeWrite off", () => {
  it("clears a cancelled meeting when the read shows our set came last", async () => {
    // Prepare: our set goes out at 09:00:00.300; the user's change, in second 09:00:00, came
    // before it (the profile shows ours), and its event arrives afterwards.
    const h = harness(dynamo, { verifyBeforeWrite: false });
    const key = await h.addUser("W4");
    h.clock.set(T0 + 300);
    await h.pilot.applyTimeline(key, [block(T0, T0 + 30 * MIN)], { sourceId: "work" });
    h.clock.set(T0 + 2000);
    await h.pilot.recordUserChange({ eventId: "Ev-tie-1", eventTime: S(T0), key, status: dog });
    // Act: the meeting is cancelled.
    h.clock.set(T0 + 5 * MIN);
    await h.pilot.applyTimeline(key, [], { sourceId: "work" });
    // Assess
    expect(h.gateway.shown(key)).toEqual(EMPTY);
    expect(h.gateway.reads.length).toBeGreaterThan(0);
  });

  it("leaves the user's status when the read shows it came last", async () => {
    // Prepare: the same second, but the user's change landed after our set.
    const h = harness(dynamo, { verifyBeforeWrite: false });
    const key = await h.addUser("W5");
    h.clock.set(T0 + 300);
    await h.pilot.applyTimeline(key, [block(T0, T0 + 30 * MIN)], { sourceId: "work" });
    h.clock.set(T0 + 2000);
    await userSets(h, key, dog, { eventTime: S(T0) });
    // Act
    h.clock.set(T0 + 5 * MIN);
    await h.pilot.applyTimeline(key, [], { sourceId: "work" });
    // Assess
    expect(h.gateway.shown(key)).toEqual(dog);
    expect(h.gateway.calls).toHaveLength(1);
  });
});
