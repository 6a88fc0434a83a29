import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";
import { block, harness, MIN, T0 } from "./harness";

let dynamo: LocalDynamo;
beforeAll(async () => {
  // A table of its own: the tick sees every user in it.
  dynamo = await startDynalite();
});
afterAll(async () => {
  await dynamo.close();
});

describe("tick", () => {
  it("enqueues each transition due in the next 70 s at its exact second, out-of-office first", async () => {
    // Prepare
    const h = harness(dynamo);
    h.clock.set(T0 - 10 * MIN);
    const a = await h.addUser("A");
    const b = await h.addUser("B");
    const c = await h.addUser("C");
    const d = await h.addUser("D");
    await h.pilot.applyTimeline(a, [block(T0 + 30_000, T0 + 30 * MIN)], { sourceId: "work" });
    await h.pilot.scheduleOutOfOffice(b, { start: T0 + 50_000, end: T0 + 600 * MIN });
    await h.pilot.applyTimeline(c, [block(T0 + 9_200, T0 + 30 * MIN)], { sourceId: "work" });
    await h.pilot.applyTimeline(d, [block(T0 + 100_000, T0 + 30 * MIN)], { sourceId: "work" });
    h.clock.set(T0);
    // Act
    const count = await h.pilot.tick();
    const again = await h.pilot.tick();
    // Assess
    expect([count, again]).toEqual([3, 0]);
    expect(h.queue.sent.map((s) => [s.message.user, s.message.reason, s.delaySeconds])).toEqual([
      ["B", "ooo", 50],
      ["C", "transition", 10],
      ["A", "transition", 30],
    ]);
  });

  it("moves a user's next transition forward to the next block start after it fired", async () => {
    // Prepare
    const h = harness(dynamo);
    h.clock.set(T0 - 10 * MIN);
    const e = await h.addUser("E");
    const meeting = block(T0 + 2 * MIN, T0 + 30 * MIN);
    const later = block(T0 + 60 * MIN, T0 + 90 * MIN);
    await h.pilot.applyTimeline(e, [meeting, later], { sourceId: "work" });
    // Act
    h.clock.set(meeting.start);
    await h.pilot.reconcileUser(e);
    // Assess: the meeting's end needs no wake-up (its status_expiration clears it)
    expect((await h.pilot.getStatusView(e))?.nextTransitionAt).toBe(later.start);
  });

  it("schedules no wake-up at the end of the last block, which the service's expiration clears", async () => {
    // Prepare
    const h = harness(dynamo);
    h.clock.set(T0 - 10 * MIN);
    const e = await h.addUser("F");
    const meeting = block(T0 + 2 * MIN, T0 + 30 * MIN);
    await h.pilot.applyTimeline(e, [meeting], { sourceId: "work" });
    // Act
    h.clock.set(meeting.start);
    await h.pilot.reconcileUser(e);
    // Assess
    expect((await h.pilot.getStatusView(e))?.nextTransitionAt).toBeUndefined();
  });
});
