/** The only source of "now" for every module. Instants are epoch milliseconds. */
export interface Clock {
  now(): number;
}

/** A clock that tests and simulations move by hand, so a whole day runs in seconds. */
export class ManualClock implements Clock {
  constructor(private current: number) {}
  now(): number {
    return this.current;
  }
  set(epochMs: number): void {
    this.current = epochMs;
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

export const toEpochSeconds = (epochMs: number): number => Math.floor(epochMs / 1000);

/**
 * How much work has cost and how long it has held the thread, and a way for long work to let
 * the event loop run what waits meanwhile. A feed's expansion is held to a CPU budget with it
 * (lib/calendar/work-budget.ts); its adapter is the clock adapter's neighbour.
 */
export interface WorkTimer {
  /** Milliseconds on a monotonic wall timer from an arbitrary origin; never decreases. */
  elapsedMs(): number;
  /**
   * CPU milliseconds the process has used; never decreases. Unlike wall time, it does not grow
   * while the machine runs other processes or Lambda throttles the function's share.
   */
  cpuMs(): number;
  /** Resolves once the event loop has run what was already waiting (timers, I/O, requests). */
  giveWay(): Promise<void>;
}
