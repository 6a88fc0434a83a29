import { describe, expect, it } from "vitest";
import type { ReconcileOutcome } from "#lib/app/contracts";
import type { UserKey } from "#lib/core/types";
import { dynaliteForFile } from "../../support/dynalite";
import { block, harness, MIN, T0 } from "./harness";

const dynamo = dynaliteForFile();

describe("createUseCases", () => {
  it("runs every reconcile a use case starts through the decorated reconcile, so a decorator sees them all", async () => {
    // Prepare: a decorator of the reconcile, as the local stack's live log gives one.
    const seen: ReconcileOutcome["kind"][] = [];
    const h = harness(dynamo, {}, (inner) => async (k: UserKey) => {
      const outcome = await inner(k);
      seen.push(outcome.kind);
      return outcome;
    });
    const key = await h.addUser("W1");
    // Act: a timeline, then an out-of-office entry and its cancellation, none called directly.
    await h.pilot.applyTimeline(key, [block(T0 - MIN, T0 + 30 * MIN)], { sourceId: "work" });
    const entry = await h.pilot.scheduleOutOfOffice(key, { start: T0, end: T0 + 60 * MIN });
    await h.pilot.cancelOutOfOffice(key, entry.id);
    // Assess: the meeting set, the out-of-office set, the meeting set again.
    expect(seen).toEqual(["set", "set", "set"]);
    expect(h.gateway.calls).toHaveLength(3);
  });
});
