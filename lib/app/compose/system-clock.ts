import type { Clock } from "#lib/core/clock";

/** The clock adapter: the one place that reads the machine's time. */
export const systemClock: Clock = { now: () => Date.now() };
