/**
 * An emulator's background deliveries (Google pushes, Graph notifications): tracked, so tests
 * and the local stack can wait until every one so far has settled, with retry waits that a
 * close ends at once.
 */
export class DeliveryJobs {
  private readonly pending = new Set<Promise<void>>();
  /** Retry waits, each with the resolver that ends it early when the emulator closes. */
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private closedAt = false;

  /** Whether the emulator closed: a delivery stops at its next step. */
  get closed(): boolean {
    return this.closedAt;
  }

  /** Tracks `job` until it settles (a rejection is the job's own to record, never unhandled). */
  track(job: Promise<void>): void {
    const tracked: Promise<void> = job
      .catch(() => undefined)
      .finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
  }

  /** Waits `ms`, or less when the emulator closes meanwhile. */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.set(t, resolve);
    });
  }

  count(): number {
    return this.pending.size;
  }

  /** Deliveries under way: tracked, and not waiting out a delay before their next attempt. */
  underway(): number {
    return Math.max(0, this.pending.size - this.timers.size);
  }

  /** Resolves when every delivery so far, retries included, has settled. */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  close(): void {
    this.closedAt = true;
    for (const [t, resolve] of this.timers) {
      clearTimeout(t);
      resolve();
    }
    this.timers.clear();
  }
}
