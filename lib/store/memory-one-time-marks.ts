import type { GrantTake, OneTimeMarks } from "#lib/core/ports";
import { StoreError } from "./errors";
import { grantNameOf } from "./items/one-time-grant";

/** How long an expired grant is kept, so its take says "expired" (AWS's TTL deletes late too). */
const EXPIRED_GRANT_KEPT_MS = 24 * 60 * 60_000;

interface Grant {
  payload: string;
  expiresAt: number;
  taken: boolean;
}

/** One-time marks in memory: the local stack without DynamoDB, and unit tests. */
export class MemoryOneTimeMarks implements OneTimeMarks {
  private readonly marks = new Map<string, number>();
  private readonly grants = new Map<string, Grant>();

  async consume(id: string, expiresAt: number, now: number): Promise<boolean> {
    const existing = this.marks.get(id);
    if (existing !== undefined && existing > now) return false;
    this.forgetExpired(now);
    this.marks.set(id, expiresAt);
    return true;
  }

  async taken(id: string, now: number): Promise<boolean> {
    return (this.marks.get(id) ?? now) > now;
  }

  async grant(id: string, payload: string, expiresAt: number): Promise<void> {
    if (this.grants.has(id))
      throw new StoreError(`one-time grant ${grantNameOf(id)}: the id is taken`, "conflict");
    this.grants.set(id, { payload, expiresAt, taken: false });
  }

  /** Checks and marks in one synchronous step: of concurrent takes, exactly one wins. */
  async take(id: string, now: number): Promise<GrantTake> {
    this.forgetExpired(now);
    const grant = this.grants.get(id);
    if (grant === undefined) return { ok: false, reason: "unknown" };
    if (grant.expiresAt <= now) return { ok: false, reason: "expired" };
    if (grant.taken) return { ok: false, reason: "taken" };
    grant.taken = true;
    return { ok: true, payload: grant.payload };
  }

  /** Expired marks count as absent; dropping them keeps a long-running process small. */
  private forgetExpired(now: number): void {
    for (const [id, expiresAt] of this.marks) if (expiresAt <= now) this.marks.delete(id);
    for (const [id, grant] of this.grants) {
      if (grant.expiresAt + EXPIRED_GRANT_KEPT_MS <= now) this.grants.delete(id);
    }
  }
}
