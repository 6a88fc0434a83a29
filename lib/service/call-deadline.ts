import { AsyncLocalStorage } from "node:async_hooks";
import { performance } from "node:perf_hooks";

/**
 * A deadline for the service calls made while handling one queue message: each call's timeout
 * is the transport's own or the time left, whichever is less, so a batch's last message fails
 * fast (and is handed back to the queue) instead of running the Lambda past its timeout.
 * Carried by async context, so concurrent messages each keep their own.
 */
const deadlines = new AsyncLocalStorage<number>();

/** Runs `fn` with calls cut off `ms` from now (on the monotonic clock). */
export function withCallDeadline<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  return deadlines.run(performance.now() + ms, fn);
}

/** Milliseconds left before the current deadline, or undefined outside one. */
export function callTimeLeftMs(): number | undefined {
  const until = deadlines.getStore();
  return until === undefined ? undefined : Math.max(0, Math.floor(until - performance.now()));
}
