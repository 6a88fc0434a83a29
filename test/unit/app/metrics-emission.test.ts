import { describe, expect, it } from "vitest";
import { createUseCases } from "#lib/app/compose/use-cases";
import { countingConflicts, withCountedPorts } from "#lib/app/metrics/counted-ports";
import { MetricsRecorder } from "#lib/app/metrics/recorder";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { ManualClock } from "#lib/core/clock";
import {
  GatewayError,
  type StatusGateway,
  type StatusTarget,
  silentLog,
  VersionConflict,
} from "#lib/core/ports";
import type { StatusValue, UserKey } from "#lib/core/types";
import { MemoryStore } from "#lib/store/memory-store";
import { block, MemoryQueue, MIN, T0 } from "../../integration/app/harness";

/**
 * What the use cases emit, read from the in-memory recorder. Each expectation restates the
 * metric's rule (lib/app/metrics/catalog.ts): lateness runs from a scheduled block's start to the
 * service's answer; every `users.profile.set` call counts once as set, clear or refused.
 */

/** A service whose every call takes `answerMs` of the test clock, and fails when told. */
class TimedGateway implements StatusGateway {
  failures: GatewayError[] = [];
  writes: StatusValue[] = [];
  constructor(
    private readonly clock: ManualClock,
    private readonly answerMs: number,
  ) {}
  async setStatus(_target: StatusTarget, status: StatusValue) {
    this.clock.advance(this.answerMs);
    const failure = this.failures.shift();
    if (failure) throw failure;
    this.writes.push(status);
    return { actual: status };
  }
  async readStatus(): Promise<{ actual: StatusValue }> {
    throw new Error("no reads: verifyBeforeWrite is off");
  }
}

function setup(answerMs = 0) {
  const clock = new ManualClock(T0);
  const store = new MemoryStore();
  const gateway = new TimedGateway(clock, answerMs);
  const metrics = new MetricsRecorder();
  const pilot = createUseCases(
    withCountedPorts({
      store,
      gateway,
      transitionQueue: new MemoryQueue(),
      clock,
      log: silentLog,
      tokens: new LocalTokenVault(Buffer.alloc(32, 7)),
      metrics,
      options: { verifyBeforeWrite: false },
    }),
  );
  const key: UserKey = { team: "T1", user: "U1" };
  const addUser = () =>
    pilot.upsertUser({
      key,
      tz: "UTC",
      token: "xoxp-U1",
      sources: [{ id: "work", url: "https://cal.example/U1.ics", kind: "ics" }],
      mode: "auto",
    });
  const showBlock = (start: number, end: number) =>
    pilot.applyTimeline(key, [block(start, end)], { sourceId: "work", hash: `h${start}` });
  return { clock, store, gateway, metrics, pilot, key, addUser, showBlock };
}

const failure = (code: string, kind: { retryable?: boolean; final?: boolean }) =>
  new GatewayError(`failed: ${code}`, code, kind.retryable ?? false, kind.final ?? false);

describe("transition lateness", () => {
  it("records 1,200 ms for a set answered 1,200 ms after the scheduled block's start", async () => {
    // Prepare: the block is known 10 minutes ahead; the service takes 200 ms to answer
    const h = setup(200);
    await h.addUser();
    const start = T0 + 10 * MIN;
    await h.showBlock(start, start + 30 * MIN);
    expect(h.gateway.writes).toHaveLength(0);
    // Act: the transition runs 1,000 ms after the start
    h.clock.set(start + 1_000);
    await h.pilot.reconcileUser(h.key);
    // Assess
    expect(h.gateway.writes).toHaveLength(1);
    expect(h.metrics.valuesOf("TransitionLateness")).toEqual([1_200]);
    expect(h.metrics.recorded().find((m) => m.name === "TransitionLateness")?.unit).toBe(
      "Milliseconds",
    );
  });

  it("records nothing for a block first learned after it began (the scheduler was not late)", async () => {
    // Prepare
    const h = setup(200);
    await h.addUser();
    // Act: a meeting that started 5 minutes ago is added now, and shown at once
    h.clock.set(T0 + 5 * MIN);
    await h.showBlock(T0, T0 + 30 * MIN);
    // Assess
    expect(h.gateway.writes).toHaveLength(1);
    expect(h.metrics.valuesOf("TransitionLateness")).toEqual([]);
  });
});

describe("users.profile.set calls", () => {
  it("counts a set, then the clear of the cancelled meeting", async () => {
    // Prepare
    const h = setup();
    await h.addUser();
    await h.showBlock(T0, T0 + 30 * MIN);
    // Act: the meeting is cancelled while it shows
    h.clock.set(T0 + 5 * MIN);
    await h.pilot.applyTimeline(h.key, [], { sourceId: "work", hash: "empty" });
    // Assess
    expect(h.gateway.writes.map((w) => w.text)).toEqual(["In a meeting", ""]);
    expect(h.metrics.valuesOf("ProfileSetCalls", { outcome: "set" })).toEqual([1]);
    expect(h.metrics.valuesOf("ProfileSetCalls", { outcome: "clear" })).toEqual([1]);
    expect(h.metrics.valuesOf("ProfileSetCalls", { outcome: "refused" })).toEqual([]);
  });

  it("counts a ratelimited answer as a refused call and as a ratelimited answer", async () => {
    // Prepare
    const h = setup();
    await h.addUser();
    h.gateway.failures.push(failure("ratelimited", { retryable: true }));
    // Act
    await h.showBlock(T0, T0 + 30 * MIN);
    // Assess
    expect(h.gateway.writes).toHaveLength(0);
    expect(h.metrics.valuesOf("ProfileSetCalls", { outcome: "refused" })).toEqual([1]);
    expect(h.metrics.valuesOf("RateLimited")).toEqual([1]);
    expect(h.metrics.valuesOf("UsersNeedingReauth")).toEqual([]);
  });

  it("counts other refusals without counting them as ratelimited", async () => {
    // Prepare
    const h = setup();
    await h.addUser();
    h.gateway.failures.push(failure("too_long", {}));
    // Act
    await h.showBlock(T0, T0 + 30 * MIN);
    // Assess
    expect(h.metrics.valuesOf("ProfileSetCalls", { outcome: "refused" })).toEqual([1]);
    expect(h.metrics.valuesOf("RateLimited")).toEqual([]);
  });
});

describe("users needing re-authorisation", () => {
  it("counts a user once when the service refuses their token for good", async () => {
    // Prepare
    const h = setup();
    await h.addUser();
    h.gateway.failures.push(failure("invalid_auth", { final: true }));
    // Act: refused, then the next block comes, and the user stays stopped
    await h.showBlock(T0, T0 + 30 * MIN);
    h.clock.set(T0 + 60 * MIN);
    await h.showBlock(T0 + 60 * MIN, T0 + 90 * MIN);
    await h.pilot.reconcileUser(h.key);
    // Assess
    expect(h.metrics.valuesOf("UsersNeedingReauth")).toEqual([1]);
    expect(h.metrics.recorded().find((m) => m.name === "UsersNeedingReauth")?.unit).toBe("Count");
  });
});

describe("version conflicts", () => {
  it("counts each versioned write that lost a race, and nothing else", async () => {
    // Prepare
    const metrics = new MetricsRecorder();
    const store = countingConflicts(new MemoryStore(), metrics);
    const key = { team: "T1", user: "U1" };
    const first = await store.putTimeline(
      { key, sourceId: "work", blocks: [], version: 0, updatedAt: T0 },
      undefined,
    );
    // Act: a write from a stale version, then one from the current version
    const stale = store.putTimeline({ ...first, updatedAt: T0 + 1 }, first.version + 7);
    await expect(stale).rejects.toBeInstanceOf(VersionConflict);
    await store.putTimeline({ ...first, updatedAt: T0 + 2 }, first.version);
    await store.getStatus(key);
    // Assess
    expect(metrics.valuesOf("VersionConflicts")).toEqual([1]);
  });
});
