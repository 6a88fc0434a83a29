import type { Scheduler, Task } from "#devstack/scheduler";
import type { ManualClock } from "#lib/core/clock";

interface Timer {
  at: number;
  seq: number;
  task: Task;
}

/**
 * A scheduler over a ManualClock that, unlike lib/local's ManualScheduler, runs the tasks due
 * at the same instant concurrently (up to `concurrency`), as Lambda runs a queue's messages in
 * parallel. The clock stands still while they run, so simulated instants stay exact; real time
 * spent is measured separately.
 */
export class ConcurrentManualScheduler implements Scheduler {
  private timers: Timer[] = [];
  private seq = 0;
  private readonly running = new Set<Promise<void>>();

  constructor(
    readonly clock: ManualClock,
    private readonly concurrency: number,
    private readonly onError: (error: unknown) => void,
    /** Waits for work the tasks set off outside the scheduler (HTTP deliveries). */
    private readonly settle: () => Promise<void>,
    /** Told each simulated instant just before its tasks start (to time them in real time). */
    private readonly onInstant: (at: number) => void = () => {},
  ) {}

  at(epochMs: number, task: Task): () => void {
    const timer = { at: epochMs, seq: this.seq++, task };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  pending(): number {
    return this.timers.length;
  }

  private run(task: Task): Promise<void> {
    const p = Promise.resolve()
      .then(task)
      .then(
        () => undefined,
        (error: unknown) => this.onError(error),
      )
      .finally(() => this.running.delete(p));
    this.running.add(p);
    return p;
  }

  /** Moves the clock to `epochMs`, running each instant's due tasks together, in time order. */
  async advanceTo(epochMs: number): Promise<void> {
    await this.idle();
    for (;;) {
      let nextAt = Number.POSITIVE_INFINITY;
      for (const t of this.timers) nextAt = Math.min(nextAt, t.at);
      if (nextAt > epochMs) break;
      const due = this.timers.filter((t) => t.at === nextAt).sort((a, b) => a.seq - b.seq);
      this.timers = this.timers.filter((t) => t.at !== nextAt);
      if (nextAt > this.clock.now()) this.clock.set(nextAt);
      this.onInstant(nextAt);
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < due.length; i = next++) await this.run((due[i] as Timer).task);
      };
      await Promise.all(Array.from({ length: Math.min(this.concurrency, due.length) }, worker));
      await this.idle();
    }
    if (epochMs > this.clock.now()) this.clock.set(epochMs);
  }

  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
    await this.settle();
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  close(): void {
    this.timers = [];
  }
}
