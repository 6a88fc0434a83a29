import { ScanCommand } from "@aws-sdk/client-dynamodb";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SyncMessage } from "#lib/app/contracts";
import { createSyncRequester, type GatedSyncDeps, runGatedSync } from "#lib/app/sync/coalescing";
import { SyncError, type SyncOutcome } from "#lib/app/sync/sync";
import { ManualClock } from "#lib/core/clock";
import { silentLog } from "#lib/core/ports";
import { RUN_LEASE_MS } from "#lib/core/sync-leases";
import { DynamoSyncGate } from "#lib/store/dynamo-sync-gate";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";

/**
 * Push coalescing through the real sync gate on dynalite. The "feed" is a version number the
 * test publishes; a sync reads it as its fetch would, so a round that started before a change
 * applies the old version, and the oracle is simply: the last version applied is the last one
 * published.
 */

const T0 = Date.UTC(2026, 2, 2, 9, 0);

let dynamo: LocalDynamo;
beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => {
  await dynamo?.close();
});

let sourceCount = 0;
/** A source no other test touches. */
const freshSource = (): SyncMessage => ({
  team: "T0DEMO",
  user: "U001",
  sourceId: `cal${++sourceCount}`,
  reason: "push",
});

class RecordingQueue {
  readonly sent: Array<{ message: SyncMessage; delaySeconds: number | undefined }> = [];
  async send(message: SyncMessage, opts?: { delaySeconds?: number }): Promise<void> {
    this.sent.push({ message, delaySeconds: opts?.delaySeconds });
  }
}

/** A feed the test publishes versions of, and a sync that reads it, with hooks inside a round. */
function world(clock = new ManualClock(T0)) {
  const gate = new DynamoSyncGate(dynamo.client, dynamo.tableName);
  const queue = new RecordingQueue();
  const feed = { version: 0 };
  const applied: number[] = [];
  let running = 0;
  let maxRunning = 0;
  /** Runs inside a round, after its fetch: what happened while the sync was busy. */
  let duringRound: (round: number) => Promise<void> = async () => undefined;
  let fetchMs = 0;
  const sync = async (): Promise<SyncOutcome> => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    try {
      const seen = feed.version;
      if (fetchMs > 0) await new Promise((resolve) => setTimeout(resolve, fetchMs));
      await duringRound(applied.length + 1);
      applied.push(seen);
      return { kind: "applied", blocks: seen, skipped: 0 };
    } finally {
      running--;
    }
  };
  const deps: GatedSyncDeps = { gate, clock, log: silentLog, sync, queue };
  return {
    gate,
    queue,
    feed,
    applied,
    clock,
    deps,
    request: createSyncRequester(queue, gate, clock),
    maxRunning: () => maxRunning,
    during(fn: (round: number) => Promise<void>) {
      duringRound = fn;
    },
    setFetchMs(ms: number) {
      fetchMs = ms;
    },
  };
}

describe("requesting a sync (the push side)", () => {
  it("sends polls and manual re-syncs straight to the queue, writing no gate, and syncs them ungated", async () => {
    // Prepare
    const w = world();
    const poll: SyncMessage = { ...freshSource(), reason: "poll" };
    const manual: SyncMessage = { ...freshSource(), reason: "manual" };
    // Act
    const sent = [await w.request(poll), await w.request(poll), await w.request(manual)];
    const outcome = await runGatedSync(w.deps, poll, { owner: "m-1" });
    // Assess: every request queued, no gate item exists, and the sync ran
    expect(sent).toEqual([true, true, true]);
    expect(w.queue.sent.map((s) => s.message.reason)).toEqual(["poll", "poll", "manual"]);
    const gates = await dynamo.client.send(new ScanCommand({ TableName: dynamo.tableName }));
    const gateKeys = (gates.Items ?? []).map((item) => JSON.stringify(item));
    expect(
      gateKeys.filter((k) => k.includes(poll.sourceId) || k.includes(manual.sourceId)),
    ).toEqual([]);
    expect(outcome).toEqual({ kind: "applied", blocks: 0, skipped: 0 });
  });

  it("queues the first push at once, with no delay, and joins the next ones to it until it starts", async () => {
    // Prepare
    const w = world();
    const msg = freshSource();
    const other = freshSource();
    // Act
    const first = await w.request(msg);
    w.clock.advance(500);
    const second = await w.request(msg);
    const otherSource = await w.request(other);
    // Assess
    expect([first, second, otherSource]).toEqual([true, false, true]);
    expect(w.queue.sent).toEqual([
      { message: msg, delaySeconds: 0 },
      { message: other, delaySeconds: 0 },
    ]);
  });

  it("queues again once the queued sync has started, so a push never joins a fetch already made", async () => {
    // Prepare
    const w = world();
    const msg = freshSource();
    await w.request(msg);
    w.during(async (round) => {
      if (round === 1) {
        w.feed.version = 1;
        // Act (inside the running round): the change is published, then pushed.
        expect(await w.request(msg)).toBe(false);
      }
    });
    // Act
    const outcome = await runGatedSync(w.deps, msg, { owner: "m1" });
    const afterwards = await w.request(msg);
    // Assess: the running sync ran once more and applied the change; no second message.
    expect(outcome).toEqual({ kind: "applied", blocks: 1, skipped: 0 });
    expect(w.applied).toEqual([0, 1]);
    expect(w.queue.sent).toHaveLength(2);
    expect(afterwards).toBe(true);
  });
});

describe("running a sync (the worker side)", () => {
  it("never syncs one source in two workers at once: the later message hands over to the running one", async () => {
    // Prepare
    const w = world();
    const msg = freshSource();
    let second: SyncOutcome | undefined;
    w.during(async (round) => {
      if (round !== 1) return;
      w.feed.version = 1;
      second = await runGatedSync(w.deps, msg, { owner: "m2" });
    });
    // Act
    const first = await runGatedSync(w.deps, msg, { owner: "m1" });
    // Assess
    expect(second).toEqual({ kind: "unchanged", reason: "coalesced" });
    expect(first).toEqual({ kind: "applied", blocks: 1, skipped: 0 });
    expect(w.applied).toEqual([0, 1]);
    expect(w.maxRunning()).toBe(1);
  });

  it("frees the source when a sync fails, so the next push queues at once", async () => {
    // Prepare
    const w = world();
    const msg = freshSource();
    await w.request(msg);
    const failing: GatedSyncDeps = {
      ...w.deps,
      sync: async () => {
        throw new SyncError("upstream_status", "feed answered 503", 503);
      },
    };
    // Act
    const failed = runGatedSync(failing, msg, { owner: "m1" });
    await expect(failed).rejects.toBeInstanceOf(SyncError);
    const next = await w.request(msg);
    const redelivery = await runGatedSync(w.deps, msg, { owner: "m1" });
    // Assess
    expect(next).toBe(true);
    expect(redelivery.kind).toBe("applied");
  });

  it("lets a dead worker's redelivery claim at once, and another message only after the claim lapses", async () => {
    // Prepare: m1 claimed the source and its Lambda died mid-sync.
    const w = world();
    const msg = freshSource();
    expect(await w.gate.claim(msg, "m1", T0)).toBe("claimed");
    w.clock.set(T0 + 1_000);
    const pushedWhileDead = await w.request(msg);
    // Act
    const other = await runGatedSync(w.deps, msg, { owner: "m2" });
    w.clock.set(T0 + 30_000);
    const redelivered = await runGatedSync(w.deps, msg, { owner: "m1" });
    await w.gate.claim(msg, "m3", T0 + 40_000);
    w.clock.set(T0 + 40_000 + RUN_LEASE_MS + 1);
    const afterLapse = await w.request(msg);
    // Assess
    expect(pushedWhileDead).toBe(false);
    expect(other).toEqual({ kind: "unchanged", reason: "coalesced" });
    expect(redelivered.kind).toBe("applied");
    expect(w.applied).toEqual([0]);
    expect(afterLapse).toBe(true);
  });

  it("hands the trailing round to a fresh message when pushes outrun its rounds", async () => {
    // Prepare
    const w = world();
    const msg = freshSource();
    w.during(async () => {
      w.feed.version++;
      await w.request(msg);
    });
    // Act
    await runGatedSync({ ...w.deps, maxRounds: 2 }, msg, { owner: "m1" });
    // Assess
    expect(w.applied).toEqual([0, 1]);
    expect(w.queue.sent).toEqual([{ message: msg, delaySeconds: 0 }]);
    expect(await w.request(msg)).toBe(false);
  });
});

describe("pushes and workers interleaved at random (property)", () => {
  it("applies the last published version and never runs two syncs of a source at once", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ gapMs: fc.integer({ min: 0, max: 12 }) }), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.integer({ min: 0, max: 8 }),
        async (pushes, fetchMs) => {
          // Prepare
          const w = world();
          w.setFetchMs(fetchMs);
          const msg = freshSource();
          const workers: Array<Promise<unknown>> = [];
          let delivered = 0;
          /** Each message goes to its own worker as soon as it is sent, as Lambda would. */
          const deliver = () => {
            while (delivered < w.queue.sent.length) {
              const owner = `m${delivered++}`;
              workers.push(runGatedSync(w.deps, msg, { owner }).then(deliver));
            }
          };
          // Act: publish a version, push it, let the workers run, repeat.
          for (const push of pushes) {
            w.feed.version++;
            await w.request(msg);
            deliver();
            await new Promise((resolve) => setTimeout(resolve, push.gapMs));
          }
          for (let i = 0; i < workers.length; i++) await workers[i];
          // Assess
          expect(w.applied.at(-1)).toBe(w.feed.version);
          expect(w.maxRunning()).toBe(1);
        },
      ),
      { numRuns: 25 },
    );
  });
});
