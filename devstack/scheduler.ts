import type { Clock, ManualClock } from "#lib/core/clock";

export type Task = () => unknown;

/** Runs tasks at instants of a clock: real timers locally, a hand-moved clock in tests. */
export interface Scheduler {
  readonly clock: Clock;
  /** Runs `task` once the clock reaches `epochMs`; returns a function that cancels it. */
  at(epochMs: number, task: Task): () => void;
  /** Resolves when no task is running (tasks started while waiting are waited for too). */
  idle(): Promise<void>;
  /** Cancels every pending task. */
  close(): void;
}

/** Tracks running task promises so callers can wait for quiet. */
class Running {
  private readonly promises = new Set<Promise<unknown>>();
  constructor(private readonly onError: (error: unknown) => void) {}
  run(task: Task): Promise<void> {
    const p = Promise.resolve()
      .then(task)
      .then(
        () => undefined,
        (error: unknown) => this.onError(error),
      )
      .finally(() => this.promises.delete(p));
    this.promises.add(p);
    return p;
  }
  get size(): number {
    return this.promises.size;
  }
  async idle(): Promise<void> {
    while (this.promises.size > 0) await Promise.all([...this.promises]);
  }
}

interface RealTimer {
  at: number;
  task: Task;
  timer?: NodeJS.Timeout;
}

/**
 * Real timers against the given clock (the system clock locally). The scheduler's own clock is
 * that clock plus whatever `skipAhead` skipped: a test jumps over a minute it would otherwise
 * sit through, and the rest runs in real time.
 */
export class RealTimeScheduler implements Scheduler {
  readonly clock: Clock;
  private skippedMs = 0;
  private readonly timers = new Set<RealTimer>();
  private readonly running: Running;

  constructor(base: Clock, onError: (error: unknown) => void = () => {}) {
    this.clock = { now: () => base.now() + this.skippedMs };
    this.running = new Running(onError);
  }

  at(epochMs: number, task: Task): () => void {
    const timer: RealTimer = { at: epochMs, task };
    this.timers.add(timer);
    this.arm(timer);
    return () => {
      clearTimeout(timer.timer);
      this.timers.delete(timer);
    };
  }

  private arm(timer: RealTimer): void {
    // setTimeout caps at about 24.8 days; re-arm in steps for anything later.
    const MAX = 2_000_000_000;
    const wait = Math.max(0, timer.at - this.clock.now());
    timer.timer = setTimeout(
      () => {
        if (wait > MAX) return this.arm(timer);
        this.timers.delete(timer);
        void this.running.run(timer.task);
      },
      Math.min(wait, MAX),
    );
    // Pending timers alone must not keep a finished process alive.
    timer.timer.unref();
  }

  /**
   * Moves the clock `ms` forward at once: the tasks that fall due on the way start now, in
   * time order; the later ones keep their instants, so they come `ms` sooner in real time.
   */
  skipAhead(ms: number): void {
    this.skippedMs += Math.max(0, ms);
    const pending = [...this.timers].sort((a, b) => a.at - b.at);
    for (const timer of pending) {
      clearTimeout(timer.timer);
      this.arm(timer);
    }
  }

  idle(): Promise<void> {
    return this.running.idle();
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t.timer);
    this.timers.clear();
  }
}

interface ManualTimer {
  at: number;
  seq: number;
  task: Task;
}

/**
 * A scheduler over a `ManualClock`: nothing runs until `advanceTo`, which walks the clock from
 * one due task to the next, in order, and lets each finish (plus whatever it set off) first.
 */
export class ManualScheduler implements Scheduler {
  private timers: ManualTimer[] = [];
  private seq = 0;
  private readonly running: Running;

  constructor(
    readonly clock: ManualClock,
    onError: (error: unknown) => void = () => {},
    /** Extra quiet to wait for after each task, e.g. HTTP round trips the task set off. */
    private readonly settle: () => Promise<void> = async () => {},
  ) {
    this.running = new Running(onError);
  }

  at(epochMs: number, task: Task): () => void {
    const timer = { at: epochMs, seq: this.seq++, task };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** The instant of the next pending task, if any. */
  nextAt(): number | undefined {
    return this.earliest()?.at;
  }

  pending(): number {
    return this.timers.length;
  }

  private earliest(): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (const t of this.timers) {
      if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }

  /** Moves the clock forward to `epochMs`, running every task due on the way, in time order. */
  async advanceTo(epochMs: number): Promise<void> {
    await this.quiesce();
    for (;;) {
      const next = this.earliest();
      if (!next || next.at > epochMs) break;
      this.timers = this.timers.filter((t) => t !== next);
      if (next.at > this.clock.now()) this.clock.set(next.at);
      await this.running.run(next.task);
      await this.quiesce();
    }
    if (epochMs > this.clock.now()) this.clock.set(epochMs);
  }

  advance(ms: number): Promise<void> {
    return this.advanceTo(this.clock.now() + ms);
  }

  private async quiesce(): Promise<void> {
    await this.running.idle();
    await this.settle();
    await this.running.idle();
  }

  idle(): Promise<void> {
    return this.quiesce();
  }

  close(): void {
    this.timers = [];
  }
}
