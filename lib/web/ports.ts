/**
 * What the front door needs from storage. (It may move to lib/core once the routes are wired.)
 */

/**
 * Marks that can be taken once: the single use of an install `state`. `consume` records `id`
 * with a conditional put and answers true the first time; false while an earlier mark of the
 * same id has not expired. `expiresAt` and `now` are epoch milliseconds; a mark expired at
 * `now` (expiresAt <= now) counts as absent.
 */
export interface OneTimeMarks {
  consume(id: string, expiresAt: number, now: number): Promise<boolean>;
}
