import { describe, expect, it, vi } from "vitest";
import { dynaliteForFile } from "../../support/dynalite";
import { block, harness, MIN, T0 } from "./harness";

// A table of its own: the tick sees every user in it.
const dynamo = dynaliteForFile();

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

  it("writes nothing, and the next minute's tick enqueues only what came into its window", async () => {
    // Prepare: transitions 30 s, 100 s and 150 s after the first tick
    const h = harness(dynamo);
    h.clock.set(T0 - 10 * MIN);
    const a = await h.addUser("G");
    const b = await h.addUser("H");
    const c = await h.addUser("I");
    await h.pilot.applyTimeline(a, [block(T0 + 30_000, T0 + 30 * MIN)], { sourceId: "work" });
    await h.pilot.applyTimeline(b, [block(T0 + 100_000, T0 + 30 * MIN)], { sourceId: "work" });
    await h.pilot.applyTimeline(c, [block(T0 + 150_000, T0 + 30 * MIN)], { sourceId: "work" });
    const puts = vi.spyOn(h.store, "putStatus");
    // The table holds the other tests' users too: count this team's messages.
    const ours = () => h.queue.sent.filter((s) => s.message.team === a.team);
    // Act: a tick at T0 (looks 70 s ahead), one a minute later, one two minutes later
    const perTick: number[] = [];
    for (const at of [T0, T0 + MIN, T0 + 2 * MIN]) {
      h.clock.set(at);
      const before = ours().length;
      await h.pilot.tick();
      perTick.push(ours().length - before);
    }
    // Assess: each transition enqueued once, by the tick whose 70 s it first fell into
    expect(perTick).toEqual([1, 1, 1]);
    expect(ours().map((s) => [s.message.user, s.message.at])).toEqual([
      ["G", T0 + 30_000],
      ["H", T0 + 100_000],
      ["I", T0 + 150_000],
    ]);
    expect(puts).not.toHaveBeenCalled();
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
