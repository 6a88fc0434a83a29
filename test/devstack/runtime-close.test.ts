import { describe, expect, it } from "vitest";
import { hostileFeed } from "#bench/fixtures/hostile-feed";
import { frozenAfterReturn } from "#devstack/app";
import { FrozenInvocationError, LambdaRuntime } from "#devstack/runtime";
import type { SyncMessage, TransitionMessage } from "#lib/app/contracts";
import { expandPaced } from "#lib/calendar/expand";
import { ManualClock } from "#lib/core/clock";
import type { Queue } from "#lib/core/ports";

/**
 * A feed's expansion in the local runtime stops with its invocation, as on Lambda: at its next
 * pause once the invocation timed out, or once the stack stops (the runtime closes), so the
 * process can exit at once instead of finishing minutes of work.
 */

const T0 = Date.UTC(2026, 2, 2);
const DAY = 86_400_000;
const noQueue: Queue<never> = { send: async () => {} };

/** The guarded work timer the local stack gives the app. */
const timerOf = (runtime: LambdaRuntime) => {
  const ports = frozenAfterReturn(runtime, {
    transitionQueue: noQueue as Queue<TransitionMessage>,
    syncQueue: noQueue as Queue<SyncMessage>,
    fetch,
  });
  if (ports.workTimer === undefined) throw new Error("no work timer");
  return ports.workTimer;
};

/** An invocation that expands a feed built to explode, with its outcome kept. */
function expandingHandler(timer: ReturnType<typeof timerOf>) {
  const text = hostileFeed({ around: T0, secondly: 200 });
  const outcome: { error?: unknown; endedAt?: number } = {};
  const handler = async () => {
    try {
      await expandPaced(text, {
        from: T0 - DAY,
        to: T0 + 14 * DAY,
        userZone: "UTC",
        pace: { timer },
      });
    } catch (error: unknown) {
      outcome.error = error;
    } finally {
      outcome.endedAt = performance.now();
    }
  };
  return { handler, outcome };
}

const until = async (done: () => boolean, ms: number) => {
  const start = performance.now();
  while (!done() && performance.now() - start < ms) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe("the local runtime and a feed's expansion", () => {
  it("stops the expansion of an invocation that timed out at its next pause", async () => {
    // Arrange
    const runtime = new LambdaRuntime({ clock: new ManualClock(T0) });
    const { handler, outcome } = expandingHandler(timerOf(runtime));
    // Act
    const invoked = runtime.invoke({ name: "syncWorker", timeoutMs: 100, handler }, {});
    await expect(invoked).rejects.toMatchObject({ code: "timeout" });
    const timedOutAt = performance.now();
    await until(() => outcome.endedAt !== undefined, 1_500);
    // Assert
    expect(outcome.error).toBeInstanceOf(FrozenInvocationError);
    expect((outcome.endedAt ?? Number.POSITIVE_INFINITY) - timedOutAt).toBeLessThan(500);
    expect(runtime.refusals()).toEqual([
      expect.objectContaining({ functionName: "syncWorker", port: "workTimer.giveWay" }),
    ]);
  });

  it("stops a running expansion when the runtime closes, and logs no refusal for it", async () => {
    // Arrange
    const runtime = new LambdaRuntime({ clock: new ManualClock(T0) });
    const { handler, outcome } = expandingHandler(timerOf(runtime));
    const invoked = runtime.invoke({ name: "syncWorker", timeoutMs: 120_000, handler }, {});
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Act
    const closedAt = performance.now();
    runtime.close();
    await invoked;
    // Assert: a stop, not a frozen call of the app's to report.
    expect(outcome.error).toBeInstanceOf(FrozenInvocationError);
    expect((outcome.endedAt ?? Number.POSITIVE_INFINITY) - closedAt).toBeLessThan(500);
    expect(runtime.refusals()).toEqual([]);
  });
});
