import type { Clock } from "#lib/core/clock";

export interface TokenBudgetOptions {
  clock: Clock;
  /** Calls per rolling minute for one (token, user) pair. Spec 8.1: 10. */
  perUserPerMinute?: number;
  /** Distinct users per rolling minute for one token. Spec 8.1: 30. */
  usersPerMinute?: number;
  /** Calls one (token, user) pair may make back to back before the steady pace applies. */
  burst?: number;
}

export type BudgetDecision = { ok: true } | { ok: false; retryAt: number };

const WINDOW_MS = 60_000;

interface UserLane {
  /** Instants of the calls inside the rolling window, oldest first. */
  calls: number[];
  /** Token bucket that spreads calls out after the burst. */
  tokens: number;
  refilledAt: number;
}

/**
 * Keeps one token's calls inside spec 8.1 (10 per minute per user, 30 users per minute).
 * A rolling-window log enforces the hard limits; a token bucket of size `burst` paces calls so a
 * user's ten calls are not all spent in the first second. It never sleeps: a refusal says when
 * the next slot frees, so a Lambda can reschedule instead of waiting.
 */
export class TokenBudget {
  private readonly clock: Clock;
  private readonly perUser: number;
  private readonly users: number;
  private readonly burst: number;
  private readonly lanes = new Map<string, Map<string, UserLane>>();

  constructor(opts: TokenBudgetOptions) {
    this.clock = opts.clock;
    this.perUser = opts.perUserPerMinute ?? 10;
    this.users = opts.usersPerMinute ?? 30;
    this.burst = Math.max(1, Math.min(opts.burst ?? 3, this.perUser));
  }

  tryTake(token: string, user: string): BudgetDecision {
    const now = this.clock.now();
    const lanes = this.lanesOf(token, now);
    const lane = lanes.get(user);
    const refusals: number[] = [];

    if (lane) {
      this.refill(lane, now);
      const oldest = lane.calls[0];
      if (lane.calls.length >= this.perUser && oldest !== undefined) {
        refusals.push(oldest + WINDOW_MS);
      }
      if (lane.tokens < 1) {
        refusals.push(lane.refilledAt + Math.ceil((1 - lane.tokens) * this.refillIntervalMs()));
      }
    } else if (this.activeUsers(lanes) >= this.users) {
      // A new user fits once the least recently called user leaves the window.
      let earliest = Number.POSITIVE_INFINITY;
      for (const other of lanes.values()) {
        const last = other.calls.at(-1);
        if (last !== undefined) earliest = Math.min(earliest, last + WINDOW_MS);
      }
      refusals.push(earliest);
    }

    if (refusals.length > 0) return { ok: false, retryAt: Math.max(...refusals) };

    const taken = lane ?? { calls: [], tokens: this.burst, refilledAt: now };
    taken.tokens -= 1;
    taken.calls.push(now);
    lanes.set(user, taken);
    return { ok: true };
  }

  private refillIntervalMs(): number {
    return WINDOW_MS / this.perUser;
  }

  private refill(lane: UserLane, now: number): void {
    const gained = (now - lane.refilledAt) / this.refillIntervalMs();
    if (gained <= 0) return;
    lane.tokens = Math.min(this.burst, lane.tokens + gained);
    lane.refilledAt = now;
  }

  private activeUsers(lanes: Map<string, UserLane>): number {
    let n = 0;
    for (const lane of lanes.values()) if (lane.calls.length > 0) n += 1;
    return n;
  }

  /** The token's lanes with calls older than the window dropped (and idle, full lanes removed). */
  private lanesOf(token: string, now: number): Map<string, UserLane> {
    let lanes = this.lanes.get(token);
    if (!lanes) {
      lanes = new Map();
      this.lanes.set(token, lanes);
    }
    for (const [user, lane] of lanes) {
      while (lane.calls.length > 0 && (lane.calls[0] ?? 0) + WINDOW_MS <= now) lane.calls.shift();
      if (lane.calls.length === 0) lanes.delete(user);
    }
    return lanes;
  }
}
