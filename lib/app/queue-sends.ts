import { QUEUE_BATCH_MAX, type Queue, type QueueEntry } from "#lib/core/ports";

/** SQS DelaySeconds maximum. */
export const MAX_DELAY_S = 900;

/**
 * The delay that lands a message sent at `now` on the second of `at` (never before it, at most
 * MAX_DELAY_S): what the tick gives each transition and each upkeep due before the next tick.
 */
export const delaySecondsUntil = (at: number, now: number): number =>
  Math.min(MAX_DELAY_S, Math.max(0, Math.ceil((at - now) / 1000)));

/** Runs `fn` over `items`, at most `limit` at once, each started in the items' order. */
export async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length) await fn(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
}

/**
 * Puts `entries` on `queue` in the order given: QUEUE_BATCH_MAX to a SendMessageBatch request,
 * each entry with its own delay (one message a request where the queue has no batch), `inFlight`
 * requests at once. Every request is made even when one fails, so as many messages as can go out
 * do so on time; then the first failure is thrown, for the caller to retry the whole (every
 * consumer of ours tolerates a message twice: SQS standard delivers at least once anyway).
 */
export async function sendEntries<M>(
  queue: Queue<M>,
  entries: ReadonlyArray<QueueEntry<M>>,
  inFlight = 1,
): Promise<void> {
  const batch = queue.sendBatch?.bind(queue);
  const requests: Array<() => Promise<void>> = [];
  if (batch === undefined) {
    for (const { message, ...opts } of entries) requests.push(() => queue.send(message, opts));
  } else {
    for (let i = 0; i < entries.length; i += QUEUE_BATCH_MAX) {
      const slice = entries.slice(i, i + QUEUE_BATCH_MAX);
      requests.push(() => batch(slice));
    }
  }
  const failures: unknown[] = [];
  await forEachBounded(requests, inFlight, (request) =>
    request().catch((error: unknown) => {
      failures.push(error);
    }),
  );
  if (failures.length > 0) throw failures[0];
}
