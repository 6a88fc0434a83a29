/**
 * Runs a piece of work at most once per event id. In production this is Powertools Idempotency
 * on our table (functions/shared/idempotency.ts), so it holds across Lambdas and retries.
 */
export interface EventOnce {
  /**
   * `fn`'s result when this call ran it; undefined when the id was already handled, or is being
   * handled right now. A throw from `fn` forgets the id, so a retry runs it again.
   */
  run<T>(eventId: string, fn: () => Promise<T>): Promise<{ value: T } | undefined>;
}

/** No gate: every delivery runs (handler tests, and apps without a table). */
export const EVERY_TIME: EventOnce = { run: async (_id, fn) => ({ value: await fn() }) };

/** An EventOnce within one process: remembers recent event ids (tests, local tools). */
export class RecentIds implements EventOnce {
  private readonly seen = new Map<string, number>();
  constructor(private readonly capacity = 5000) {}

  async run<T>(eventId: string, fn: () => Promise<T>): Promise<{ value: T } | undefined> {
    if (this.checkAndAdd(eventId, this.seen.size)) return undefined;
    try {
      return { value: await fn() };
    } catch (error: unknown) {
      this.forget(eventId);
      throw error;
    }
  }

  /** True when `id` was already seen; records it otherwise. */
  checkAndAdd(id: string, now: number): boolean {
    if (this.seen.has(id)) return true;
    this.seen.set(id, now);
    if (this.seen.size > this.capacity) {
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    return false;
  }

  forget(id: string): void {
    this.seen.delete(id);
  }
}
