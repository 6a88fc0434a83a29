import { fnv1a } from "./hash";
/**
 * The one backoff formula: exponential from `baseS`, capped at `maxS`, with deterministic
 * jitter in [50 %, 100 %) of the step so retries of many users spread without Math.random.
 * A service's Retry-After wins over the formula.
 */
export interface Backoff {
  baseS: number;
  maxS: number;
}

/** Deterministic jitter in [0, 1) from a seed (FNV-1a), so the same retry waits the same. */
export const jitter = (seed: string): number => {
  return (fnv1a(seed) % 1000) / 1000;
};

/** Milliseconds to wait before `attempt` (1 for the first retry). */
export function backoffDelayMs(
  policy: Backoff,
  attempt: number,
  seed: string,
  retryAfterS?: number,
): number {
  const delayS =
    retryAfterS ??
    Math.min(policy.maxS, policy.baseS * 2 ** (attempt - 1)) * (0.5 + jitter(seed) / 2);
  return Math.ceil(delayS * 1000);
}
