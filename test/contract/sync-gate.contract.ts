import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SourceRef, SyncGate } from "#lib/core/ports";
import { QUEUED_LEASE_MS, RUN_LEASE_MS } from "#lib/core/sync-leases";

/**
 * What every SyncGate promises (lib/core/ports.ts), run against each adapter, with the default
 * leases: a push queues a sync unless one queued or running covers it, a running sync that a
 * push came in during runs once more, one sync of a source at a time, and claims and queued
 * marks lapse.
 */
export interface SyncGateUnderTest {
  gate: SyncGate;
  cleanup(): Promise<void>;
}

const T0 = Date.UTC(2025, 2, 3, 9, 0, 0);
const WORK: SourceRef = { team: "T1", user: "UALICE", sourceId: "work" };
const HOME: SourceRef = { team: "T1", user: "UALICE", sourceId: "home" };
const BOBS_WORK: SourceRef = { team: "T1", user: "UBOB", sourceId: "work" };

export function describeSyncGateContract(
  name: string,
  makeGate: () => Promise<SyncGateUnderTest>,
): void {
  describe(`SyncGate contract: ${name}`, () => {
    let subject: SyncGateUnderTest;
    let gate: SyncGate;
    beforeEach(async () => {
      subject = await makeGate();
      gate = subject.gate;
    });
    afterEach(async () => {
      await subject.cleanup();
    });

    describe("request (the push side)", () => {
      it("queues the first push, joins the next ones until the queued mark lapses, then queues again", async () => {
        // Act
        const first = await gate.request(WORK, T0);
        const second = await gate.request(WORK, T0 + 1_000);
        const lastMoment = await gate.request(WORK, T0 + QUEUED_LEASE_MS - 1);
        const lapsed = await gate.request(WORK, T0 + QUEUED_LEASE_MS);
        // Assess
        expect([first, second, lastMoment, lapsed]).toEqual(["queue", "joined", "joined", "queue"]);
      });

      it("keeps sources apart, of one user and across users", async () => {
        // Prepare
        await gate.request(WORK, T0);
        // Act / Assess
        expect(await gate.request(HOME, T0)).toBe("queue");
        expect(await gate.request(BOBS_WORK, T0)).toBe("queue");
        expect(await gate.request(WORK, T0)).toBe("joined");
      });

      it("queues again after the queued request was withdrawn, and only its own withdrawal counts", async () => {
        // Prepare
        await gate.request(WORK, T0);
        // Act
        await gate.withdraw(WORK, T0 - 1);
        const afterWrongWithdraw = await gate.request(WORK, T0 + 1);
        await gate.withdraw(WORK, T0);
        const afterWithdraw = await gate.request(WORK, T0 + 2);
        // Assess
        expect([afterWrongWithdraw, afterWithdraw]).toEqual(["joined", "queue"]);
      });

      it("joins a push that comes in during a run by having the running sync go once more", async () => {
        // Prepare
        await gate.request(WORK, T0);
        await gate.claim(WORK, "m1", T0 + 1_000);
        // Act
        const during = await gate.request(WORK, T0 + 2_000);
        const finished = await gate.finish(WORK, "m1", T0 + 3_000);
        const finishedAgain = await gate.finish(WORK, "m1", T0 + 4_000);
        const afterRun = await gate.request(WORK, T0 + 5_000);
        // Assess
        expect([during, finished, finishedAgain, afterRun]).toEqual([
          "joined",
          "again",
          "done",
          "queue",
        ]);
      });
    });

    describe("claim, finish and release (the worker side)", () => {
      it("claims a queued source and ends its queued mark", async () => {
        // Prepare
        await gate.request(WORK, T0);
        // Act
        const claimed = await gate.claim(WORK, "m1", T0 + 1_000);
        const done = await gate.finish(WORK, "m1", T0 + 2_000);
        const next = await gate.request(WORK, T0 + 3_000);
        // Assess
        expect([claimed, done, next]).toEqual(["claimed", "done", "queue"]);
      });

      it("runs one sync of a source at a time: a second message hands over, and the first goes once more", async () => {
        // Prepare
        await gate.claim(WORK, "m1", T0);
        // Act
        const second = await gate.claim(WORK, "m2", T0 + 1_000);
        const other = await gate.claim(HOME, "m2", T0 + 1_000);
        const first = await gate.finish(WORK, "m1", T0 + 2_000);
        const firstAgain = await gate.finish(WORK, "m1", T0 + 3_000);
        // Assess
        expect([second, other, first, firstAgain]).toEqual([
          "handed_over",
          "claimed",
          "again",
          "done",
        ]);
      });

      it("lets the same message claim again at once (a redelivery), and another only once the claim lapsed", async () => {
        // Prepare
        await gate.claim(WORK, "m1", T0);
        // Act
        const redelivery = await gate.claim(WORK, "m1", T0 + 1_000);
        const otherLive = await gate.claim(WORK, "m2", T0 + 1_000 + RUN_LEASE_MS - 1);
        const otherLapsed = await gate.claim(WORK, "m3", T0 + 1_000 + RUN_LEASE_MS);
        // Assess
        expect([redelivery, otherLive, otherLapsed]).toEqual(["claimed", "handed_over", "claimed"]);
      });

      it("renews the claim when it goes again", async () => {
        // Prepare
        await gate.claim(WORK, "m1", T0);
        await gate.request(WORK, T0 + 1_000);
        // Act
        const again = await gate.finish(WORK, "m1", T0 + 100_000);
        const other = await gate.claim(WORK, "m2", T0 + RUN_LEASE_MS + 50_000);
        // Assess
        expect([again, other]).toEqual(["again", "handed_over"]);
      });

      it("tells a worker whose claim was taken over that it is done, and leaves the new runner's state", async () => {
        // Prepare
        await gate.claim(WORK, "m1", T0);
        await gate.claim(WORK, "m2", T0 + RUN_LEASE_MS);
        await gate.request(WORK, T0 + RUN_LEASE_MS + 1);
        // Act
        const stale = await gate.finish(WORK, "m1", T0 + RUN_LEASE_MS + 2);
        await gate.release(WORK, "m1");
        const current = await gate.finish(WORK, "m2", T0 + RUN_LEASE_MS + 3);
        // Assess
        expect([stale, current]).toEqual(["done", "again"]);
      });

      it("starts a new claim clean: pushes before it are covered by its own fetch", async () => {
        // Prepare: m1 runs, a push marks it, then m1 dies and its claim lapses
        await gate.claim(WORK, "m1", T0);
        await gate.request(WORK, T0 + 1);
        // Act
        const claim = await gate.claim(WORK, "m2", T0 + RUN_LEASE_MS);
        const finish = await gate.finish(WORK, "m2", T0 + RUN_LEASE_MS + 1);
        // Assess
        expect([claim, finish]).toEqual(["claimed", "done"]);
      });

      it("frees the source on release, so the next push queues at once and the next message claims", async () => {
        // Prepare
        await gate.claim(WORK, "m1", T0);
        await gate.request(WORK, T0 + 1);
        // Act
        await gate.release(WORK, "m2");
        const stillRunning = await gate.request(WORK, T0 + 2);
        await gate.release(WORK, "m1");
        const push = await gate.request(WORK, T0 + 3);
        const claim = await gate.claim(WORK, "m3", T0 + 4);
        const finish = await gate.finish(WORK, "m3", T0 + 5);
        // Assess: the push that came in before the release does not make m3 go again
        expect([stillRunning, push, claim, finish]).toEqual(["joined", "queue", "claimed", "done"]);
      });
    });
  });
}
