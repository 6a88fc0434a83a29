import { performance } from "node:perf_hooks";
import type { Clock, WorkTimer } from "#lib/core/clock";

/** The clock adapter: the one place that reads the machine's time. */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * The work timer adapter: the monotonic timer (unmoved by clock adjustments), the process's CPU
 * time (user and system), and a give-way that resolves after a macrotask, so timers, sockets
 * and other requests run in between.
 */
export const systemWorkTimer: WorkTimer = {
  elapsedMs: () => performance.now(),
  cpuMs: () => {
    const used = process.cpuUsage();
    return (used.user + used.system) / 1000;
  },
  giveWay: () => new Promise<void>((resolve) => setImmediate(resolve)),
};
