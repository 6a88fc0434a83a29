import { setImmediate as nextTurn } from "node:timers/promises";
import type { Scheduler, Task } from "#devstack/scheduler";
import type { ManualClock } from "#lib/core/clock";

interface Timer {
  at: number;
  seq: number;
  task: Task;
}

export interface SoakSchedulerOptions {
  clock: ManualClock;
  onError: (error: unknown) => void;
  /** Work the tasks set off but do not await (HTTP round trips, event deliveries, queries). */
  busy: () => number;
  /**
   * Called when nothing has finished for `stallAfterMs` of real time while something is still
   * busy, so a hang names what it waits on instead of idling silently.
   */
  onStall?: (waitedMs: number) => void;
  stallAfterMs?: number;
}

export interface SoakSchedulerStats {
  /** Tasks run so far. */
  tasks: number;
  /** Distinct instants the clock stopped at. */
  instants: number;
  /** Real time from starting each instant's tasks until everything was quiet again. */
  settleMs: number;
}

/**
 * A scheduler over a `ManualClock` for the soak. It walks the clock from one due instant to the
 * next and runs every task due at that instant together, as concurrent Lambdas would, then
 * waits until nothing is busy before moving on. Quiet is polled on the next turn of the event
 * loop first and only then on a 1 ms timer, so a quiet instant costs microseconds, not
 * milliseconds.
 */
export class SoakScheduler implements Scheduler {
  readonly clock: ManualClock;
  private timers: Timer[] = [];
  private seq = 0;
  private readonly running = new Set<Promise<void>>();
  private closed = false;
  private progress = 0;
  private readonly counts: SoakSchedulerStats = { tasks: 0, instants: 0, settleMs: 0 };

  constructor(private readonly options: SoakSchedulerOptions) {
    this.clock = options.clock;
  }

  at(epochMs: number, task: Task): () => void {
    const timer: Timer = { at: epochMs, seq: this.seq++, task };
    // Kept sorted by (at, seq): binary search for the insertion point.
    let lo = 0;
    let hi = this.timers.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.timers[mid] as Timer).at <= epochMs) lo = mid + 1;
      else hi = mid;
    }
    this.timers.splice(lo, 0, timer);
    return () => {
      const i = this.timers.indexOf(timer);
      if (i >= 0) this.timers.splice(i, 1);
    };
  }

  nextAt(): number | undefined {
    return this.timers[0]?.at;
  }

  pending(): number {
    return this.timers.length;
  }

  /** Tasks running now. */
  runningCount(): number {
    return this.running.size;
  }

  stats(): SoakSchedulerStats {
    return { ...this.counts };
  }

  /** Moves the clock to `epochMs`, running each due instant's tasks together, in time order. */
  async advanceTo(epochMs: number): Promise<void> {
    await this.quiesce();
    for (;;) {
      const first = this.timers[0];
      if (this.closed || first === undefined || first.at > epochMs) break;
      let n = 0;
      while (n < this.timers.length && (this.timers[n] as Timer).at === first.at) n++;
      const due = this.timers.splice(0, n);
      if (first.at > this.clock.now()) this.clock.set(first.at);
      this.counts.instants++;
      for (const timer of due) this.run(timer.task);
      await this.quiesce();
    }
    if (epochMs > this.clock.now()) this.clock.set(epochMs);
  }

  idle(): Promise<void> {
    return this.quiesce();
  }

  close(): void {
    this.closed = true;
    this.timers = [];
  }

  private run(task: Task): void {
    this.counts.tasks++;
    const p: Promise<void> = Promise.resolve()
      .then(task)
      .then(
        () => undefined,
        (error: unknown) => this.options.onError(error),
      )
      .finally(() => {
        this.running.delete(p);
        this.progress++;
      });
    this.running.add(p);
  }

  /** Waits until no task runs and nothing the tasks set off is busy, three checks in a row. */
  private async quiesce(): Promise<void> {
    const started = performance.now();
    const stallAfter = this.options.stallAfterMs ?? 20_000;
    let lastProgress = this.progress;
    let lastProgressAt = started;
    let reportedAt = started;
    let quiet = 0;
    for (let turn = 0; quiet < 3; turn++) {
      const busy = this.running.size + this.options.busy();
      quiet = busy === 0 ? quiet + 1 : 0;
      if (quiet >= 3) break;
      // The first turns catch work that ends within microseconds; a 1 ms timer then stops a
      // long wait (a held call, a slow handler) from spinning the CPU.
      if (turn < 64) await nextTurn();
      else await new Promise((resolve) => setTimeout(resolve, 1));
      const now = performance.now();
      if (this.progress !== lastProgress) {
        lastProgress = this.progress;
        lastProgressAt = now;
      } else if (now - lastProgressAt >= stallAfter && now - reportedAt >= stallAfter) {
        reportedAt = now;
        this.options.onStall?.(Math.round(now - lastProgressAt));
      }
    }
    this.counts.settleMs += performance.now() - started;
  }
}
