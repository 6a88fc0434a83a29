import { describe, expect, it } from "vitest";
import { DynamoStore } from "#lib/store/dynamo-store";
import { emulatorPilot, useEmulatorStack } from "./emulator-harness";
import { block, MIN, T0 } from "./harness";

/*
 * One snooze per block under at-least-once delivery: reconciles of one user that run at once
 * (a transition delivered twice, a sync's reconcile beside it) claim the snooze on the user's
 * DND item, a versioned write, so the emulator sees one dnd.setSnooze.
 */

const TOKEN = "xoxp-member-0001";
const stack = useEmulatorStack({
  // Each call takes a moment, so the others run while the first snooze is in flight.
  faults: "latency_ms=300",
  workspace: (ws) => {
    const token = ws.tokens.find((t) => t.token === TOKEN);
    token?.scopes.push("dnd:read", "dnd:write");
  },
});

describe("a dnd block's snooze under concurrent reconciles", () => {
  it("is sent once when three reconciles run at its start at once", async () => {
    // Prepare
    const key = { team: "T0CONF", user: "U0MEMBER" };
    stack.clock.set(T0);
    const pilot = emulatorPilot(stack);
    await pilot.upsertUser({
      key,
      tz: "Europe/Berlin",
      token: TOKEN,
      sources: [{ id: "work", url: "https://cal.example/work.ics", kind: "ics" }],
      mode: "auto",
    });
    const focus = { ...block(T0 + MIN, T0 + 31 * MIN, "focus"), dnd: true };
    await pilot.applyTimeline(key, [focus], { sourceId: "work" });
    // Act
    stack.clock.set(focus.start + 200);
    await Promise.all([
      pilot.reconcileUser(key),
      pilot.reconcileUser(key),
      pilot.reconcileUser(key),
    ]);
    stack.clock.set(focus.start + 5 * MIN);
    await pilot.reconcileUser(key);
    // Assess
    const snoozes = stack.emulator.calls().filter((c) => c.method === "dnd.setSnooze");
    expect(snoozes.map((c) => [c.outcome, c.params?.num_minutes])).toEqual([["ok", "30"]]);
    expect(stack.emulator.state().dnd.U0MEMBER?.snooze_endtime).toBe(focus.end / 1000);
  });

  it("leaves a snooze another worker claimed to it, and takes it over once that claim is stale", async () => {
    // Prepare: another worker claimed this block's snooze a moment ago and is still calling.
    const key = { team: "T0CONF", user: "U0MEMBER" };
    const start = T0 + 100 * MIN;
    stack.clock.set(start - MIN);
    const pilot = emulatorPilot(stack);
    const focus = { ...block(start, start + 20 * MIN, "focus"), dnd: true };
    await pilot.applyTimeline(key, [focus], { sourceId: "work" });
    const store = new DynamoStore(stack.dynamo.client, stack.dynamo.tableName);
    const current = (await store.loadUser(key)).snooze;
    const claim = { blockStart: focus.start, blockEnd: focus.end, claimedAt: focus.start };
    await store.putSnooze(
      { key, claim, version: current?.version ?? 0, updatedAt: focus.start },
      current?.version,
    );
    const before = stack.emulator.calls().at(-1)?.seq ?? 0;
    const dndSince = () =>
      stack.emulator
        .calls()
        .filter((c) => c.seq > before && c.method.startsWith("dnd."))
        .map((c) => c.method);
    // Act
    stack.clock.set(focus.start + 500);
    await pilot.reconcileUser(key);
    const whileClaimed = dndSince();
    stack.clock.set(focus.start + 31_000);
    await pilot.reconcileUser(key);
    // Assess: the claim's holder sends it; a claim past the lease (30 s) was a worker that died.
    expect(whileClaimed).toEqual([]);
    expect(dndSince()).toEqual(["dnd.info", "dnd.setSnooze"]);
  });
});
