import { performance } from "node:perf_hooks";
import type { Clock } from "../../lib/core/clock";

export interface Invocation {
  /** The serverless.yml function name. */
  fn: string;
  /** Simulated instant the invocation started (epoch ms). */
  at: number;
  /** Real handler time on this machine. */
  ms: number;
}

// biome-ignore lint/complexity/noBannedTypes: handlers are whatever middy built.
export type Loader = () => Promise<{ handler: Function }>;

let log: Invocation[] = [];
/**
 * Wraps a function's handler loader so each invocation is recorded: function name, simulated
 * start (on `clock`), and real handler time.
 */
export const timed =
  (fn: string, load: Loader, clock: Clock): Loader =>
  async () => {
    const handler = (await load()).handler;
    return {
      handler: async (...args: unknown[]) => {
        const at = clock.now();
        const t0 = performance.now();
        try {
          return await handler(...args);
        } finally {
          log.push({ fn, at, ms: performance.now() - t0 });
        }
      },
    };
  };

/** Invocations since the last reset. */
export const invocations = (): Invocation[] => [...log];

export function resetInvocations(): void {
  log = [];
}
