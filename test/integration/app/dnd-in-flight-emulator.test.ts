import { describe, expect, it } from "vitest";
import { createUseCases } from "#lib/app/compose/use-cases";
import type { SnoozeGateway } from "#lib/core/ports";
import { ServiceClient } from "#lib/service/client";
import { gate } from "../../support/gate";
import { addMember, emulatorDeps, useEmulatorStack } from "./emulator-harness";
import { block, type MemoryQueue, MIN, T0 } from "./harness";

/*
 * Every DND call is claimed on the user's DND item before it is sent, the snooze's end and its
 * set-back too: a reconcile that finds a call in flight for something else than what shows now
 * (the block moved while the call was made) comes back a moment later, once it has landed,
 * rather than leaving the late call's answer standing.
 */

const TOKEN = "xoxp-member-0001";
const stack = useEmulatorStack({
  workspace: (ws) => {
    const token = ws.tokens.find((t) => t.token === TOKEN);
    token?.scopes.push("dnd:read", "dnd:write");
  },
});

/**
 * The snooze gateway, but the first call `holds` picks waits until `release()`: a call in
 * flight while another reconcile runs. `reached` settles when that call is being held.
 */
function holdingGateway(
  real: SnoozeGateway,
  holds: (call: "set" | "end", minutes?: number) => boolean,
) {
  const held = gate();
  const reached = gate();
  let holding = true;
  const hold = async (call: "set" | "end", minutes?: number): Promise<void> => {
    if (!holding || !holds(call, minutes)) return;
    holding = false;
    reached.open();
    await held.opened;
  };
  const gateway: SnoozeGateway = {
    snoozeInfo: (target) => real.snoozeInfo(target),
    setSnooze: async (target, minutes) => {
      await hold("set", minutes);
      return real.setSnooze(target, minutes);
    },
    endSnooze: async (target) => {
      await hold("end");
      return real.endSnooze(target);
    },
  };
  return { gateway, reached: reached.opened, release: held.open };
}

describe("a call that ends or sets back a snooze, in flight while the block comes back moved", () => {
  // The focus block is cancelled 10 minutes in, and comes back moved (to 10..40 minutes in)
  // while the reconcile that saw it cancelled is calling the service.
  it.each([
    { call: "end" as const, theirsMinutes: 0, at: 200 * MIN },
    { call: "set" as const, theirsMinutes: 20, at: 300 * MIN },
  ])("leaves the moved block snoozed ($call in flight)", async ({ call, theirsMinutes, at }) => {
    // Prepare
    const T = T0 + at;
    const deps = emulatorDeps(stack);
    const queue = deps.transitionQueue as MemoryQueue;
    // Held: the end, or the set back of the person's own (5 minutes left of it).
    const held = holdingGateway(
      deps.snoozes as SnoozeGateway,
      (c, minutes) => c === call && (c === "end" || minutes === 5),
    );
    const pilot = createUseCases({ ...deps, snoozes: held.gateway });
    stack.clock.set(T - 5 * MIN);
    const key = await addMember(pilot, TOKEN);
    if (theirsMinutes > 0) {
      // The person's own snooze, to 15 minutes into the block: ours lengthens it.
      const client = new ServiceClient({ baseUrl: stack.emulator.apiBase, clock: stack.clock });
      await client.dnd("dnd.setSnooze", TOKEN, { num_minutes: String(theirsMinutes) });
    }
    const focus = { ...block(T, T + 30 * MIN, "focus"), dnd: true };
    await pilot.applyTimeline(key, [focus], { sourceId: "work" });
    stack.clock.set(T + 200);
    await pilot.reconcileUser(key);
    expect(stack.emulator.state().dnd.U0MEMBER?.snooze_endtime).toBe(focus.end / 1000);
    // Act: the cancel's reconcile is held in its call; the move's reconcile runs meanwhile.
    stack.clock.set(T + 10 * MIN);
    const cancelled = pilot.applyTimeline(key, [], { sourceId: "work" });
    await held.reached;
    const moved = { ...block(T + 10 * MIN, T + 40 * MIN, "focus"), dnd: true };
    await pilot.applyTimeline(key, [moved], { sourceId: "work" });
    held.release();
    await cancelled;
    // The retry the move's reconcile queued comes a second later.
    const retries = queue.sent.filter((m) => m.message.reason === "retry");
    expect(retries.map((m) => m.message.at)).toContain(T + 10 * MIN + 1000);
    stack.clock.set(T + 10 * MIN + 1000);
    await pilot.reconcileUser(key);
    // Assess: snoozed to the moved block's end.
    expect(stack.emulator.state().dnd.U0MEMBER?.snooze_endtime).toBe(moved.end / 1000);
  });
});
