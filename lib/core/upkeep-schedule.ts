import type { UserKey } from "./types";

/**
 * When each connected source's push channel is next looked after (created, renewed, repaired):
 * one entry per source, found by the minute tick through the due index (the DynamoDB adapter is
 * lib/store/dynamo-upkeep-schedule.ts; lib/app/push/schedule.ts uses it). The entry is also the
 * upkeep's lease, so two workers never renew the same channel at once.
 */

/** One source's next upkeep, as the due index shows it to the tick. */
export interface UpkeepDue {
  key: UserKey;
  sourceId: string;
  /** Epoch ms. */
  dueAt: number;
}

/** A source's upkeep entry, as its worker reads it. */
export interface UpkeepEntry extends UpkeepDue {
  /** Upkeeps that failed in a row since the last success: how far the retry backs off. */
  failures: number;
}

export interface UpkeepSchedule {
  /** Sets the source's next upkeep (and ends a claim on it). */
  set(entry: UpkeepEntry): Promise<void>;
  /**
   * Claims the source's upkeep until `leaseUntil` unless another claim on it is still running at
   * `now`. Answers the entry as it was before the claim, or undefined when another worker holds
   * it. Without an entry it creates none and holds nothing: it answers one due at `now` with no
   * failures, and the upkeep that follows writes the entry (`set`) only if the source is still
   * connected, so an upkeep that comes after the user's data was deleted leaves nothing behind.
   * Whoever needs the first upkeep held (connecting) sets the entry before claiming it.
   */
  claim(
    key: UserKey,
    sourceId: string,
    now: number,
    leaseUntil: number,
  ): Promise<UpkeepEntry | undefined>;
  /** Deletes the source's entry (disconnected, removed); nothing happens when there is none. */
  remove(key: UserKey, sourceId: string): Promise<void>;
  /**
   * Takes the source's entry out of the schedule without deleting it (the source went, or must
   * be connected again), so a worker that may not delete items can stop it; a later claim
   * (connecting again) puts it back, due at once. Without an entry, nothing happens.
   */
  park(key: UserKey, sourceId: string): Promise<void>;
  /** Every entry due at or before `now` (from the index, so eventually consistent). */
  dueBy(now: number): Promise<UpkeepDue[]>;
}

/** A schedule that keeps nothing: for use cases built without one (tests, tools). */
export const noUpkeepSchedule: UpkeepSchedule = {
  set: async () => {},
  claim: async (key, sourceId, now) => ({ key, sourceId, dueAt: now, failures: 0 }),
  remove: async () => {},
  park: async () => {},
  dueBy: async () => [],
};
