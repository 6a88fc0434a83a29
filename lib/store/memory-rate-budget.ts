import type { RateBudget, RateSlot } from "#lib/core/ports";
import { reserveSlot, type Slot, type SlotLimits, slotLimitsOf } from "#lib/core/rate-slots";

export type MemoryRateBudgetOptions = Partial<SlotLimits>;

/**
 * The spec 8.1 budget in memory, with the DynamoDB budget's rules
 * (test/contract/rate-budget.contract.ts): one book of slots per token (lib/core/rate-slots.ts).
 */
export class MemoryRateBudget implements RateBudget {
  private readonly limits: SlotLimits;
  private readonly books = new Map<string, Slot[]>();

  constructor(options: MemoryRateBudgetOptions = {}) {
    this.limits = slotLimitsOf(options);
  }

  async take(tokenId: string, user: string, now: number): Promise<RateSlot> {
    const next = reserveSlot(this.books.get(tokenId) ?? [], user, now, this.limits);
    if (next.changed) this.books.set(tokenId, next.book);
    return next.slot;
  }
}
