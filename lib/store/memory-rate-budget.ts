import type { RateBudget, RateSlot } from "../core/ports";
import type { DynamoRateBudgetOptions } from "./dynamo-rate-budget";
import { WINDOW_MS, windowOf } from "./items/budget";

/** Minutes kept behind the latest one taken (the DynamoDB items' TTL keeps ten). */
const KEEP_WINDOWS = 10;

export type MemoryRateBudgetOptions = DynamoRateBudgetOptions;

/** One token's counters in one fixed minute. */
interface WindowCounters {
  users: Set<string>;
  calls: Map<string, number>;
}

/**
 * The spec 8.1 budget in memory, with the DynamoDB budget's rules
 * (test/contract/rate-budget.contract.ts): per token and fixed minute, at most
 * `usersPerWindow` distinct users, and per user at most `perUserPerWindow` calls. A user, once
 * in a minute's set, keeps its place there even when its own calls run out.
 */
export class MemoryRateBudget implements RateBudget {
  private readonly perUser: number;
  private readonly users: number;
  /** By token, then by minute; minutes long past are dropped, as TTL deletes their items. */
  private readonly counters = new Map<string, Map<number, WindowCounters>>();

  constructor(options: MemoryRateBudgetOptions = {}) {
    this.perUser = options.perUserPerWindow ?? 5;
    this.users = options.usersPerWindow ?? 15;
  }

  async take(tokenId: string, user: string, now: number): Promise<RateSlot> {
    const window = windowOf(now);
    const refused: RateSlot = { ok: false, retryAt: (window + 1) * WINDOW_MS };
    const counters = this.countersOf(tokenId, window);
    if (!counters.users.has(user)) {
      if (counters.users.size >= this.users) return refused;
      counters.users.add(user);
    }
    const calls = counters.calls.get(user) ?? 0;
    if (calls >= this.perUser) return refused;
    counters.calls.set(user, calls + 1);
    return { ok: true };
  }

  private countersOf(tokenId: string, window: number): WindowCounters {
    let windows = this.counters.get(tokenId);
    if (!windows) {
      windows = new Map();
      this.counters.set(tokenId, windows);
    }
    let counters = windows.get(window);
    if (!counters) {
      counters = { users: new Set(), calls: new Map() };
      windows.set(window, counters);
      // Kept as long as the DynamoDB items live, so a worker whose clock lags still counts.
      for (const old of windows.keys()) if (old < window - KEEP_WINDOWS) windows.delete(old);
    }
    return counters;
  }
}
