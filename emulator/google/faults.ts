import { type GoogleApiError, rateLimited } from "./errors";

/**
 * Switchable faults of the Calendar API. Each is turned on by a control call (or the
 * programmatic API) and answers the documented way. Sync-token expiry, silent channels and
 * dead grants live with the state they spoil (calendar model, channels, OAuth).
 */

export interface RateLimitFault {
  /** 403 `rateLimitExceeded`/`userRateLimitExceeded`, or 429 `rateLimitExceeded`. */
  status: 403 | 429;
  reason?: "rateLimitExceeded" | "userRateLimitExceeded";
  /** How many Calendar API calls answer it; absent, every call until cleared. */
  times?: number;
  /** Adds a `Retry-After` header (Google's Calendar docs do not promise one). */
  retryAfterS?: number;
}

export class ApiFaults {
  private rateLimit: RateLimitFault | undefined;

  setRateLimit(f: RateLimitFault | null): void {
    this.rateLimit = f === null ? undefined : { ...f };
  }

  /** The refusal for this call, if a fault is on; counts the call against `times`. */
  take(): GoogleApiError | undefined {
    const f = this.rateLimit;
    if (!f) return undefined;
    if (f.times !== undefined) {
      if (f.times <= 0) {
        this.rateLimit = undefined;
        return undefined;
      }
      f.times -= 1;
      if (f.times === 0) this.rateLimit = undefined;
    }
    return rateLimited(f.status, f.reason ?? "rateLimitExceeded", f.retryAfterS);
  }

  describe(): { rateLimit: RateLimitFault | null } {
    return { rateLimit: this.rateLimit ?? null };
  }
}
