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
