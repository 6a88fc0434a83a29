import type { Gateway } from "#devstack/http-gateway";
import type { DelayQueue } from "#devstack/queue";
import type { Scheduler, SettleMoment } from "#devstack/scheduler";
import type { RunningEmulator } from "#emulator/server";
import type { Clock } from "#lib/core/clock";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * How the local stack waits for quiet under a hand-moved clock: until no request, event delivery
 * or queue message is in progress, twice in a row a few milliseconds apart (a delivery can start
 * just after the call that caused it returns, and a provider's push after the watch that opened
 * its channel). Then the emulator's status expiries are put on the scheduler, as its timer would
 * sweep them.
 *
 * The wait costs about 10 ms of wall time, after every scheduled task. A task that set nothing
 * off (no outbound call of the handlers, no queue message: an idle minute tick, which reads the
 * due index and finds nothing) needs none: after it, `settle("task")` returns at once when
 * nothing is in progress either. Days of idle ticks then cost their Lambda invocations only.
 */
export function stackSettle(parts: {
  clock: Clock;
  scheduler: Scheduler;
  gateway: Gateway;
  emulator: RunningEmulator | undefined;
  queues: ReadonlyArray<DelayQueue<unknown>>;
  /** Whether the emulator's expiries are swept at their instants (manual time). */
  sweepExpiries: boolean;
}): {
  settle(moment?: SettleMoment): Promise<void>;
  /** The handlers' fetch, each call counted as something set off. */
  countedFetch(inner: typeof fetch): typeof fetch;
} {
  const { clock, scheduler, gateway, emulator, queues } = parts;
  let fetches = 0;
  /** Everything set off so far: the handlers' calls out, queue sends and redeliveries. */
  const setOff = () => queues.reduce((n, q) => n + q.stats().sent + q.stats().redelivered, fetches);
  const busy = () =>
    gateway.inFlight() +
    (emulator?.pendingDeliveries() ?? 0) +
    queues.reduce((n, q) => n + q.stats().inFlight, 0);
  let settledAt = -1;

  const sweepsAt = new Set<number>();
  const scheduleExpirySweeps = () => {
    if (!emulator || !parts.sweepExpiries) return;
    for (const profile of Object.values(emulator.state().profiles)) {
      const at = profile.status_expiration * 1000;
      if (profile.status_expiration <= 0 || at <= clock.now() || sweepsAt.has(at)) continue;
      sweepsAt.add(at);
      scheduler.at(at, async () => {
        sweepsAt.delete(at);
        await emulator.sweepExpired();
      });
    }
  };

  return {
    async settle(moment = "idle") {
      if (moment === "task" && setOff() === settledAt && busy() === 0) return;
      // Quiet twice in a row: a delivery can start just after the set that caused it returns.
      let quietRounds = 0;
      for (let i = 0; i < 2000 && quietRounds < 2; i++) {
        const inProgress = busy();
        quietRounds = inProgress === 0 ? quietRounds + 1 : 0;
        await sleep(inProgress === 0 ? 5 : 2);
      }
      settledAt = setOff();
      scheduleExpirySweeps();
    },
    countedFetch: (inner) => (input, init) => {
      fetches += 1;
      return inner(input, init);
    },
  };
}
