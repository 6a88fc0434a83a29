/** The service's limits of spec 8.1, as rolling one-minute windows on the emulator's clock. */

const WINDOW_MS = 60_000;

export interface RateLimits {
  /** `users.profile.set` calls per minute by one token for one user (spec: 10). */
  perUserPerMinute: number;
  /** Extra calls tolerated above `perUserPerMinute` inside one minute ("some bursting"). */
  burst: number;
  /** Distinct users one token may set per minute (spec: 30). */
  usersPerMinute: number;
  /** `apps.manifest.update` calls per minute for one app (the spec does not give one). */
  manifestPerMinute: number;
}

export const DEFAULT_LIMITS: RateLimits = {
  perUserPerMinute: 10,
  burst: 0,
  usersPerMinute: 30,
  manifestPerMinute: 20,
};

export type RateDecision = { ok: true } | { ok: false; retryAfterS: number };

function prune(calls: number[], now: number): void {
  while (calls.length > 0 && (calls[0] ?? 0) + WINDOW_MS <= now) calls.shift();
}

const after = (at: number, now: number): number => Math.max(1, Math.ceil((at - now) / 1000));

export class RateLimiter {
  private readonly profile = new Map<string, Map<string, number[]>>();
  private readonly manifest = new Map<string, number[]>();

  constructor(private readonly limits: RateLimits) {}

  /** Counts one `users.profile.set` attempt of `token` on `user`, or says when to retry. */
  takeProfileSet(token: string, user: string, now: number): RateDecision {
    let byUser = this.profile.get(token);
    if (!byUser) {
      byUser = new Map();
      this.profile.set(token, byUser);
    }
    for (const [u, calls] of byUser) {
      prune(calls, now);
      if (calls.length === 0) byUser.delete(u);
    }
    const calls = byUser.get(user);
    if (calls) {
      const oldest = calls[0];
      if (
        calls.length >= this.limits.perUserPerMinute + this.limits.burst &&
        oldest !== undefined
      ) {
        return { ok: false, retryAfterS: after(oldest + WINDOW_MS, now) };
      }
      calls.push(now);
      return { ok: true };
    }
    if (byUser.size >= this.limits.usersPerMinute) {
      let earliest = Number.POSITIVE_INFINITY;
      for (const c of byUser.values()) earliest = Math.min(earliest, (c.at(-1) ?? now) + WINDOW_MS);
      return { ok: false, retryAfterS: after(earliest, now) };
    }
    byUser.set(user, [now]);
    return { ok: true };
  }

  takeManifestUpdate(appId: string, now: number): RateDecision {
    let calls = this.manifest.get(appId);
    if (!calls) {
      calls = [];
      this.manifest.set(appId, calls);
    }
    prune(calls, now);
    const oldest = calls[0];
    if (calls.length >= this.limits.manifestPerMinute && oldest !== undefined) {
      return { ok: false, retryAfterS: after(oldest + WINDOW_MS, now) };
    }
    calls.push(now);
    return { ok: true };
  }
}
