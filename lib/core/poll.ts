import { fnv1a } from "./hash";
import type { UserKey } from "./types";

/** When calendar sources are polled, as a safety net behind push. */

/** How often an ICS source is polled. */
export const POLL_INTERVAL_MS = 15 * 60_000;

/** The poll runs this often (serverless.yml's schedule); POLL_INTERVAL_MS is a multiple of it. */
export const POLL_RUN_MS = 5 * 60_000;

/**
 * The poll phases a run at `now` covers: those whose slot boundary fell in the POLL_RUN_MS
 * period that ended at the last multiple of POLL_RUN_MS. Consecutive runs cover consecutive
 * periods, so each user is found once per POLL_INTERVAL_MS, at most POLL_RUN_MS after its
 * boundary, whatever its sources' last sync did (a failed one, or none yet, included).
 */
export function pollPhasesEndedBy(now: number): { from: number; to: number } {
  const periodEnd = Math.floor(now / POLL_RUN_MS) * POLL_RUN_MS;
  const from =
    (((periodEnd - POLL_RUN_MS) % POLL_INTERVAL_MS) + POLL_INTERVAL_MS) % POLL_INTERVAL_MS;
  return { from, to: from + POLL_RUN_MS };
}

/**
 * Which of a user's 15-minute poll visits the run at `now` makes: the number of the
 * POLL_INTERVAL_MS slot holding the boundary of every phase it covers (pollPhasesEndedBy). One
 * run gives all its users the same number, and a user's consecutive visits consecutive numbers,
 * so "every n-th visit of this source" needs nothing stored.
 */
export function pollVisitOf(now: number): number {
  const periodEnd = Math.floor(now / POLL_RUN_MS) * POLL_RUN_MS;
  return Math.floor((periodEnd - POLL_RUN_MS) / POLL_INTERVAL_MS);
}

/**
 * Where in each POLL_INTERVAL_MS a user's sources are polled (ms, FNV-1a of the user's
 * partition key): they are due whenever `now - phase` crosses a multiple of the interval.
 */
export function pollPhaseOf(key: UserKey): number {
  return fnv1a(`USER#${key.team}#${key.user}`) % POLL_INTERVAL_MS;
}

/**
 * The poll runs (each at a multiple of POLL_RUN_MS, the earliest instant of its 5 minutes)
 * that visit a user of poll phase `phase`, from `from` on (`step` 1) or back from it (`step` -1),
 * at most `count` of them: one in every POLL_INTERVAL_MS.
 */
export function pollRunsOf(phase: number, from: number, step: 1 | -1, count: number): number[] {
  const runs: number[] = [];
  let run =
    step === 1
      ? Math.ceil(from / POLL_RUN_MS) * POLL_RUN_MS
      : Math.floor(from / POLL_RUN_MS) * POLL_RUN_MS;
  // A run covers the phases of the 5 minutes before it: one run in three holds this phase.
  for (let i = 0; runs.length < count && i < count * 4; i++, run += step * POLL_RUN_MS) {
    const covered = pollPhasesEndedBy(run);
    if (phase >= covered.from && phase < covered.to) runs.push(run);
  }
  return runs;
}
