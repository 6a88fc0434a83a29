import { VersionConflict } from "#lib/core/ports";

/**
 * The optimistic-concurrency loop: runs `attempt` (which reads, then writes conditionally on the
 * version it read) until it completes without losing a race, at most `times` times. When every
 * try lost, answers `exhausted()` (which may throw). Any other error ends the loop.
 */
export async function retryOnConflict<T>(
  times: number,
  attempt: () => Promise<T>,
  exhausted: () => T | Promise<T>,
): Promise<T> {
  for (let i = 0; i < times; i++) {
    try {
      return await attempt();
    } catch (error: unknown) {
      if (!(error instanceof VersionConflict)) throw error;
    }
  }
  return exhausted();
}

/** Ignores a lost race: for writes that another writer's newer write makes unnecessary. */
export async function unlessConflict(write: () => Promise<unknown>): Promise<void> {
  try {
    await write();
  } catch (error: unknown) {
    if (!(error instanceof VersionConflict)) throw error;
  }
}
