import type { UserKey } from "#lib/core/types";
import type { UpkeepDue, UpkeepEntry, UpkeepSchedule } from "#lib/core/upkeep-schedule";

/**
 * The push upkeep schedule in memory, with the DynamoDB schedule's rules
 * (test/contract/upkeep-schedule.contract.ts). One process holds it, so each step is atomic.
 */
export class MemoryUpkeepSchedule implements UpkeepSchedule {
  private readonly entries = new Map<
    string,
    UpkeepEntry & { leaseUntil?: number; parked?: true }
  >();

  async set(entry: UpkeepEntry): Promise<void> {
    this.entries.set(idOf(entry.key, entry.sourceId), { ...entry });
  }

  async claim(
    key: UserKey,
    sourceId: string,
    now: number,
    leaseUntil: number,
  ): Promise<UpkeepEntry | undefined> {
    const id = idOf(key, sourceId);
    const found = this.entries.get(id);
    // No entry: none is made (the upkeep's `set` makes it once the source proves connected).
    if (found === undefined) return { key, sourceId, dueAt: now, failures: 0 };
    if (found.leaseUntil !== undefined && found.leaseUntil > now) return undefined;
    const before: UpkeepEntry = {
      key,
      sourceId,
      dueAt: found.parked ? now : found.dueAt,
      failures: found.failures,
    };
    this.entries.set(id, { ...before, leaseUntil });
    return before;
  }

  async remove(key: UserKey, sourceId: string): Promise<void> {
    this.entries.delete(idOf(key, sourceId));
  }

  async park(key: UserKey, sourceId: string): Promise<void> {
    const id = idOf(key, sourceId);
    if (!this.entries.has(id)) return;
    this.entries.set(id, { key, sourceId, dueAt: 0, failures: 0, parked: true });
  }

  async dueBy(now: number): Promise<UpkeepDue[]> {
    return [...this.entries.values()]
      .filter((e) => e.parked !== true && e.dueAt <= now)
      .sort((a, b) => a.dueAt - b.dueAt)
      .map(({ key, sourceId, dueAt }) => ({ key, sourceId, dueAt }));
  }
}

const idOf = (key: UserKey, sourceId: string): string => `${key.team}#${key.user}#${sourceId}`;
