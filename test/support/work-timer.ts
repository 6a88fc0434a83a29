import type { WorkTimer } from "#lib/core/clock";

/**
 * A WorkTimer for tests: each wall reading moves it `stepMs` forward, so a budget runs out after
 * a known number of units of work, whatever the machine's speed or load. Of each step, the
 * share `cpuShare` is this process's CPU (1: an idle machine; 0.5: half the time went to other
 * processes). It gives way as the system's does (after a macrotask), and counts how often.
 */
export class SteppingWorkTimer implements WorkTimer {
  private wall = 0;
  giveWays = 0;

  constructor(
    private readonly stepMs = 1,
    private readonly cpuShare = 1,
  ) {}

  elapsedMs(): number {
    this.wall += this.stepMs;
    return this.wall;
  }

  cpuMs(): number {
    return this.wall * this.cpuShare;
  }

  giveWay(): Promise<void> {
    this.giveWays++;
    return new Promise<void>((resolve) => setImmediate(resolve));
  }
}
