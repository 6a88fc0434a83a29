/**
 * A person's Do Not Disturb snooze (an extension beyond the spec): when it ends, on the
 * emulator's clock. Saved in and restored from snapshots.
 */
import * as z from "zod";

/** The longest snooze accepted; the platform's bound (`too_long`) is not public. */
export const MAX_SNOOZE_MINUTES = 525_600;

export const dndSnapshotSchema = z.object({
  /** Person → the epoch second their snooze ends. */
  snoozes: z.record(z.string(), z.number().int().nonnegative()),
});
export type DndSnapshot = z.infer<typeof dndSnapshotSchema>;

export class DndState {
  private readonly snoozes = new Map<string, number>();

  /** The epoch second `user`'s snooze ends, when one is on at `nowS`. */
  snoozeEnd(user: string, nowS: number): number | undefined {
    const end = this.snoozes.get(user);
    return end !== undefined && end > nowS ? end : undefined;
  }

  snooze(user: string, endS: number): void {
    this.snoozes.set(user, endS);
  }

  end(user: string): void {
    this.snoozes.delete(user);
  }

  /** Drops the snoozes that ended by `nowS`; how many. */
  sweep(nowS: number): number {
    let ended = 0;
    for (const [user, end] of this.snoozes) {
      if (end <= nowS) {
        this.snoozes.delete(user);
        ended += 1;
      }
    }
    return ended;
  }

  /** The snoozes on at `nowS`, for `/_emulator/state`. */
  active(nowS: number): Record<string, { snooze_endtime: number }> {
    const out: Record<string, { snooze_endtime: number }> = {};
    for (const [user, end] of this.snoozes) if (end > nowS) out[user] = { snooze_endtime: end };
    return out;
  }

  save(): DndSnapshot {
    return { snoozes: Object.fromEntries(this.snoozes) };
  }

  restore(saved: DndSnapshot): void {
    this.snoozes.clear();
    for (const [user, end] of Object.entries(saved.snoozes)) this.snoozes.set(user, end);
  }
}
