import type { Clock, ManualClock } from "#lib/core/clock";

export type Task = () => unknown;

/**
 * When a manual scheduler waits for quiet: `idle` before it moves the clock (and when asked),
 * `task` just after one of its tasks finished, when a wait may be skipped if the task set
 * nothing off.
 */
export type SettleMoment = "idle" | "task";

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

/** Real timers against the given clock (the system clock locally). */
export class RealTimeScheduler implements Scheduler {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running: Running;

  constructor(
    readonly clock: Clock,
    onError: (error: unknown) => void = () => {},
  ) {
    this.running = new Running(onError);
  }

  at(epochMs: number, task: Task): () => void {
    // setTimeout caps at about 24.8 days; re-arm in steps for anything later.
    const MAX = 2_000_000_000;
    let timer: NodeJS.Timeout;
    const arm = () => {
      const wait = Math.max(0, epochMs - this.clock.now());
      timer = setTimeout(
        () => {
          this.timers.delete(timer);
          if (wait > MAX) arm();
          else void this.running.run(task);
        },
        Math.min(wait, MAX),
      );
      // Pending timers alone must not keep a finished process alive.
      timer.unref();
      this.timers.add(timer);
    };
    arm();
    return () => {
      clearTimeout(timer);
      this.timers.delete(timer);
    };
  }

  idle(): Promise<void> {
    return this.running.idle();
  }

  close(): void {
    for (const t of this.timers) clearTimeout(t);
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
    private readonly settle: (moment: SettleMoment) => Promise<void> = async () => {},
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
      await this.quiesce("task");
    }
    if (epochMs > this.clock.now()) this.clock.set(epochMs);
  }

  advance(ms: number): Promise<void> {
    return this.advanceTo(this.clock.now() + ms);
  }

  private async quiesce(moment: SettleMoment = "idle"): Promise<void> {
    await this.running.idle();
    await this.settle(moment);
    await this.running.idle();
  }

  idle(): Promise<void> {
    return this.quiesce();
  }

  close(): void {
    this.timers = [];
  }
}
