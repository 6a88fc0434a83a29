import { describe, expect, it } from "vitest";
import type { UserKey } from "#lib/core/types";
import { dynaliteForFile } from "../../support/dynalite";
import { block, type Harness, harness, MIN, T0 } from "./harness";

const dynamo = dynaliteForFile();

const EMPTY = { text: "", emoji: "", expiration: 0 };

/** 50 reconciles of one user at once: transition messages, calendar syncs, late events, ticks. */
async function stampede(h: Harness, key: UserKey, blocks: ReturnType<typeof block>[], tag: string) {
  const nowS = Math.floor(h.clock.now() / 1000);
  return Promise.all(
    Array.from({ length: 50 }, (_, i) => {
      switch (i % 4) {
        case 0:
          return h.pilot.reconcileUser(key);
        case 1:
          return h.pilot.applyTimeline(key, blocks, { sourceId: "work" });
        case 2:
          // A late user_change from before the transition, delivered now.
          return h.pilot.recordUserChange({
            eventId: `${tag}-${i}`,
            eventTime: nowS - 5,
            key,
            status: EMPTY,
          });
        default:
          return h.pilot.tick();
      }
    }),
  );
}

describe("concurrent reconciles of one user", () => {
  it("send exactly one write per transition and lose no update", async () => {
    // Prepare
    const h = harness(dynamo);
    h.gateway.latencyMs = 15;
    const key = await h.addUser("U-busy");
    const meeting = block(T0 + 10 * MIN, T0 + 40 * MIN);
    const focus = block(T0 + 40 * MIN, T0 + 70 * MIN, "focus");
    await h.pilot.applyTimeline(key, [meeting, focus], { sourceId: "work" });
    // Act
    h.clock.set(meeting.start);
    await stampede(h, key, [meeting, focus], "a");
    h.clock.set(focus.start);
    await stampede(h, key, [meeting, focus], "b");
    // Assess
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual(["In a meeting", "Focus time"]);
    const snap = await h.store.loadUser(key);
    // 1 initial + 2 × 13 concurrent syncs, each a versioned write that must not be lost.
    expect(snap.timelines[0]?.version).toBe(27);
    expect(snap.status?.state.lastWritten?.text).toBe("Focus time");
    expect(snap.status?.state.pending).toBeUndefined();
  });
});

describe("concurrent reconciles after a user's own change", () => {
  it("send the block's status once when the user clears theirs mid-block", async () => {
    // Prepare: the meeting shows; the user set a status of their own, then clears it. The clear
    // is recorded with its wake-up and no read comes first, so the reconciles that follow have
    // nothing to store but their claim; the set takes long enough for all of them to decide.
    const h = harness(dynamo, { verifyBeforeWrite: false });
    h.gateway.latencyMs = 300;
    const key = await h.addUser("U-clears");
    const meeting = block(T0 + 10 * MIN, T0 + 40 * MIN);
    await h.pilot.applyTimeline(key, [meeting], { sourceId: "work" });
    h.clock.set(meeting.start);
    await h.pilot.reconcileUser(key);
    const lunch = { text: "Lunch", emoji: ":taco:", expiration: 0 };
    h.clock.set(meeting.start + 5 * MIN);
    h.gateway.userSets(key, lunch);
    const nowS = Math.floor(h.clock.now() / 1000);
    await h.pilot.recordUserChange({ eventId: "lunch", eventTime: nowS, key, status: lunch });
    h.clock.set(meeting.start + 6 * MIN);
    h.gateway.userSets(key, EMPTY);
    // Act: the clear's own reconcile, and 20 more from the moment the clear is stored.
    const recording = h.pilot.recordUserChange({
      eventId: "clear",
      eventTime: nowS + 60,
      key,
      status: EMPTY,
    });
    const cleared = (nowS + 60) * 1000;
    while (((await h.store.getStatus(key))?.state.actual.observedAt ?? 0) < cleared) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all([recording, ...Array.from({ length: 20 }, () => h.pilot.reconcileUser(key))]);
    // Assess
    expect(h.gateway.calls.map((c) => c.status.text)).toEqual(["In a meeting", "In a meeting"]);
    expect(h.gateway.shown(key).text).toBe("In a meeting");
  });
});
