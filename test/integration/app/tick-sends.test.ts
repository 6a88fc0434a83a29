import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { UseCaseContext } from "#lib/app/context";
import type { TransitionMessage } from "#lib/app/contracts";
import { enqueueTransitions, TRANSITION_SENDS_IN_FLIGHT } from "#lib/app/status/records";
import type { QueueEntry } from "#lib/core/ports";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";
import { block, type Harness, harness, MemoryQueue, MIN, T0 } from "./harness";

// The tick's sends at scale: ten transitions to a SendMessageBatch request, each with its own
// delay, a few requests at once. Each test has a table of its own: the tick sees every user in it.

let dynamo: LocalDynamo;
beforeEach(async () => {
  dynamo = await startDynalite();
});
afterEach(async () => {
  await dynamo.close();
});

/**
 * 23 users due in the tick's next 70 s: 20 meetings starting 1.5 s, 2.5 s, ... 20.5 s after
 * T0, and 3 out-of-office blocks starting 60.2 s, 61.2 s and 62.2 s after it.
 */
async function herdOf23(h: Harness): Promise<void> {
  h.clock.set(T0 - 10 * MIN);
  for (let i = 0; i < 20; i++) {
    const key = await h.addUser(`M${i}`);
    await h.pilot.applyTimeline(key, [block(T0 + 1_500 + i * 1_000, T0 + 30 * MIN)], {
      sourceId: "work",
    });
  }
  for (let j = 0; j < 3; j++) {
    const key = await h.addUser(`O${j}`);
    await h.pilot.scheduleOutOfOffice(key, {
      start: T0 + 60_200 + j * 1_000,
      end: T0 + 600 * MIN,
    });
  }
  h.clock.set(T0);
}

const meetingUsers = Array.from({ length: 20 }, (_, i) => `M${i}`);

describe("tick sends", () => {
  it("sends N due transitions in ceil(N/10) batch requests, out-of-office first, each at its own second", async () => {
    // Prepare
    const h = harness(dynamo);
    await herdOf23(h);
    // Act
    const count = await h.pilot.tick();
    // Assess: 23 messages in requests of 10, 10 and 3
    expect(count).toBe(23);
    expect(h.queue.requests).toEqual([10, 10, 3]);
    // Out-of-office first (61, 62, 63 s: 60.2 s rounds up), then the meetings by time (2..21 s)
    expect(h.queue.sent.map((s) => [s.message.user, s.message.reason, s.delaySeconds])).toEqual([
      ["O0", "ooo", 61],
      ["O1", "ooo", 62],
      ["O2", "ooo", 63],
      ...meetingUsers.map((user, i) => [user, "transition", i + 2]),
    ]);
  });

  it("keeps no more than the bound of requests in flight, and more than one", async () => {
    // Prepare: 95 transitions (10 requests); each request waits until released
    const h = harness(dynamo);
    h.clock.set(T0 - 10 * MIN);
    for (let i = 0; i < 95; i++) {
      const key = await h.addUser(`B${i}`);
      await h.pilot.applyTimeline(key, [block(T0 + 5_000, T0 + 30 * MIN)], { sourceId: "work" });
    }
    h.clock.set(T0);
    let inFlight = 0;
    let most = 0;
    const record = MemoryQueue.prototype.sendBatch.bind(h.queue);
    h.queue.sendBatch = async (entries) => {
      inFlight++;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      inFlight--;
      await record(entries);
    };
    // Act
    await h.pilot.tick();
    // Assess
    expect(h.queue.requests).toEqual([...Array(9).fill(10), 5]);
    expect(most).toBe(TRANSITION_SENDS_IN_FLIGHT);
    expect(most).toBeGreaterThan(1);
  });

  it("loses nothing when a batch request fails: the tick throws, and the next tick sends them", async () => {
    // Prepare: the second request of the first tick fails
    const h = harness(dynamo);
    await herdOf23(h);
    const record = MemoryQueue.prototype.sendBatch.bind(h.queue);
    let requests = 0;
    h.queue.sendBatch = async (entries) => {
      if (++requests === 2) throw new Error("SQS unavailable");
      await record(entries);
    };
    // Act
    const first = h.pilot.tick();
    await expect(first).rejects.toThrow("SQS unavailable");
    const afterFirst = h.queue.sent.map((s) => s.message.user);
    h.clock.set(T0 + 1_000);
    const second = await h.pilot.tick();
    // Assess: the first tick sent the requests that did not fail (the first and the third);
    // the next tick, a second later, sends all 23 again (a duplicate is harmless)
    expect(afterFirst).toEqual([
      "O0",
      "O1",
      "O2",
      ...meetingUsers.slice(0, 7),
      ...meetingUsers.slice(17),
    ]);
    expect(second).toBe(23);
    const bySecondTick = h.queue.sent.slice(afterFirst.length);
    expect(new Set(bySecondTick.map((s) => s.message.user))).toEqual(
      new Set(["O0", "O1", "O2", ...meetingUsers]),
    );
  });
});

describe("enqueueTransitions", () => {
  it("delays each message to its second, from none when overdue to SQS's 900 s at most", async () => {
    // Prepare: a queue without batches (one send a message)
    const sent: Array<QueueEntry<TransitionMessage>> = [];
    const ctx = {
      queue: { send: async (message, opts) => void sent.push({ message, ...opts }) },
    } as Pick<UseCaseContext, "queue"> as UseCaseContext;
    const key = { team: "T1", user: "U1" };
    // Act
    await enqueueTransitions(
      ctx,
      [
        { key, at: T0 - 1_500, reason: "transition" },
        { key, at: T0 + 20 * MIN, reason: "retry" },
        { key, at: T0 + 999, reason: "ooo" },
      ],
      T0,
    );
    // Assess
    expect(sent.map((s) => [s.message.reason, s.delaySeconds, s.dedupeKey])).toEqual([
      ["transition", 0, `T1#U1#${T0 - 1_500}`],
      ["retry", 900, `T1#U1#${T0 + 20 * MIN}`],
      ["ooo", 1, `T1#U1#${T0 + 999}`],
    ]);
  });
});
