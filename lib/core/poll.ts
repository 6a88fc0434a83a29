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
