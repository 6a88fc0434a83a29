/**
 * The platform's rate-limit tiers for the methods beyond the spec (its public "Rate limits"
 * page): each method is limited per app per workspace to its tier's calls per minute, and
 * `chat.postMessage` to about one message per second per channel. Rolling one-minute windows on
 * the emulator's clock.
 */
import { type CallContext, fail, type MethodResult } from "./methods";
import type { WorkspaceToken } from "./workspace";

const WINDOW_MS = 60_000;

export interface TierLimits {
  /** Tier 2: "20+ per minute" (`dnd.setSnooze`, `dnd.endSnooze`). */
  tier2: number;
  /** Tier 3: "50+ per minute" (`dnd.info`). */
  tier3: number;
  /** Tier 4: "100+ per minute" (`views.publish`). */
  tier4: number;
  /** `chat.postMessage`: "1 message per second to a specific channel", as messages per minute. */
  postMessagePerChannelPerMinute: number;
}

export const DEFAULT_TIER_LIMITS: TierLimits = {
  tier2: 20,
  tier3: 50,
  tier4: 100,
  postMessagePerChannelPerMinute: 60,
};

export type Tier = "tier2" | "tier3" | "tier4";

export type TierDecision = { ok: true } | { ok: false; retryAfterS: number };

export class TierLimiter {
  private readonly windows = new Map<string, number[]>();

  constructor(private readonly limits: TierLimits) {}

  /** Counts one call of `method` by `caller` (the token's app, else the token) in its tier. */
  take(tier: Tier, method: string, caller: string, now: number): TierDecision {
    return this.count(`${method}|${caller}`, this.limits[tier], now);
  }

  /** Counts one `chat.postMessage` of `caller` into `channel`. */
  takeMessage(caller: string, channel: string, now: number): TierDecision {
    return this.count(`post|${caller}|${channel}`, this.limits.postMessagePerChannelPerMinute, now);
  }

  private count(key: string, limit: number, now: number): TierDecision {
    const calls = this.windows.get(key) ?? [];
    while (calls.length > 0 && (calls[0] ?? 0) + WINDOW_MS <= now) calls.shift();
    const oldest = calls[0];
    if (calls.length >= limit && oldest !== undefined) {
      return { ok: false, retryAfterS: Math.max(1, Math.ceil((oldest + WINDOW_MS - now) / 1000)) };
    }
    calls.push(now);
    this.windows.set(key, calls);
    return { ok: true };
  }
}

/**
 * Counts a call of `method` in its tier, per app (or per token of no app, like a person's own);
 * the `ratelimited` answer (429, `Retry-After`) when over, undefined when the call may go on.
 */
export function rateLimited(
  tiers: TierLimiter,
  tier: Tier,
  method: string,
  ctx: CallContext,
  token: WorkspaceToken,
): MethodResult | undefined {
  const decision = tiers.take(tier, method, token.app ?? token.token, ctx.now);
  if (decision.ok) return undefined;
  return {
    ...fail("ratelimited"),
    headers: { "retry-after": String(decision.retryAfterS) },
    caller: token.user,
  };
}
