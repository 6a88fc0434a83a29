import type { OneTimeMarks } from "#lib/core/ports";

/** One-time marks in memory: the local stack without DynamoDB, and unit tests. */
export class MemoryOneTimeMarks implements OneTimeMarks {
  private readonly marks = new Map<string, number>();

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

  /** Expired marks count as absent; dropping them keeps a long-running process small. */
  private forgetExpired(now: number): void {
    for (const [id, expiresAt] of this.marks) if (expiresAt <= now) this.marks.delete(id);
  }
}
