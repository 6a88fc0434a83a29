import { afterEach, describe, expect, it } from "vitest";
import type { RateBudget } from "#lib/core/ports";

/**
 * What every RateBudget promises (lib/core/ports.ts, spec 8.1), run against each adapter. Per
 * token, the admitted calls of any rolling minute are at most `usersPerWindow` (so are its
 * distinct users), and a user's at most `perUserPerWindow`. A caller without room is handed a
 * slot of its own: the earliest instant a minute and the margin after the call that many
 * places before it (the book only grows at its end). Coming back at that slot (up to half the
 * margin late) admits it; coming early is refused with the same slot; coming later books again.
 */
export interface RateBudgetUnderTest {
  budget: RateBudget;
  cleanup(): Promise<void>;
}

export interface RateBudgetLimits {
  perUserPerWindow?: number;
  usersPerWindow?: number;
  marginMs?: number;
}

const MINUTE = Date.UTC(2025, 2, 3, 9, 0, 0);
/** The spacing with a 2 s margin: a rolling minute plus the margin. */
const SPACING = 62_000;

export function describeRateBudgetContract(
  name: string,
  makeBudget: (limits?: RateBudgetLimits) => Promise<RateBudgetUnderTest>,
): void {
  describe(`RateBudget contract: ${name}`, () => {
    const made: RateBudgetUnderTest[] = [];
    const budgetWith = async (limits?: RateBudgetLimits): Promise<RateBudget> => {
      const subject = await makeBudget(limits);
      made.push(subject);
      return subject.budget;
    };
    afterEach(async () => {
      await Promise.all(made.splice(0).map((m) => m.cleanup()));
    });

    it("admits 30 users of one token at once and hands each further one a slot a minute and the margin later", async () => {
      // Prepare
      const budget = await budgetWith();
      const users = Array.from({ length: 70 }, (_, i) => `U${i}`);
      // Act: ten at a time, as concurrent workers would
      const slots = [];
      for (let i = 0; i < users.length; i += 10) {
        const wave = users.slice(i, i + 10);
        slots.push(...(await Promise.all(wave.map((u) => budget.take("T1#A", u, MINUTE)))));
      }
      // Assess
      expect(slots.filter((s) => s.ok)).toHaveLength(30);
      const later = slots.flatMap((s) => (s.ok ? [] : [s.retryAt]));
      expect(later.filter((at) => at === MINUTE + SPACING)).toHaveLength(30);
      expect(later.filter((at) => at === MINUTE + 2 * SPACING)).toHaveLength(10);
    });

    it("admits a user that comes back at its slot, refuses one that comes early with the same slot, and books a late one again", async () => {
      // Prepare: one user per rolling minute, so every slot is a minute and the margin apart
      const budget = await budgetWith({ usersPerWindow: 1, marginMs: 2_000 });
      await budget.take("T1#A", "U1", MINUTE);
      const u2 = await budget.take("T1#A", "U2", MINUTE);
      const u3 = await budget.take("T1#A", "U3", MINUTE);
      // Act
      const early = await budget.take("T1#A", "U2", MINUTE + 30_000);
      const onTime = await budget.take("T1#A", "U2", MINUTE + SPACING + 500);
      const late = await budget.take("T1#A", "U3", MINUTE + 2 * SPACING + 1_001);
      // Assess
      expect(u2).toEqual({ ok: false, retryAt: MINUTE + SPACING });
      expect(u3).toEqual({ ok: false, retryAt: MINUTE + 2 * SPACING });
      expect(early).toEqual({ ok: false, retryAt: MINUTE + SPACING });
      expect(onTime).toEqual({ ok: true });
      // Its missed slot still counts where it was: the next lies a spacing after it.
      expect(late).toEqual({ ok: false, retryAt: MINUTE + 3 * SPACING });
    });

    it("admits 10 calls of one user in a rolling minute, then slots the next a minute and the margin after the first", async () => {
      // Prepare
      const budget = await budgetWith();
      // Act
      const slots = [];
      for (let i = 0; i < 11; i++) slots.push(await budget.take("T1#A", "U1", MINUTE + i * 2_000));
      // Assess
      expect(slots.slice(0, 10).every((s) => s.ok)).toBe(true);
      expect(slots[10]).toEqual({ ok: false, retryAt: MINUTE + SPACING });
    });

    it("admits a user again within its slot's first second (a duplicate delivery) without using another slot", async () => {
      // Prepare: one user per rolling minute
      const budget = await budgetWith({ usersPerWindow: 1, marginMs: 2_000 });
      await budget.take("T1#A", "U1", MINUTE);
      const waiting = await budget.take("T1#A", "U2", MINUTE);
      // Act
      const duplicate = await budget.take("T1#A", "U2", MINUTE + SPACING);
      const again = await budget.take("T1#A", "U2", MINUTE + SPACING + 1_000);
      const third = await budget.take("T1#A", "U3", MINUTE + SPACING + 1_000);
      // Assess
      expect(waiting).toEqual({ ok: false, retryAt: MINUTE + SPACING });
      expect([duplicate.ok, again.ok]).toEqual([true, true]);
      expect(third).toEqual({ ok: false, retryAt: MINUTE + 2 * SPACING });
    });

    it("counts each token apart", async () => {
      // Prepare
      const budget = await budgetWith({ usersPerWindow: 1, perUserPerWindow: 1 });
      await budget.take("T1#A", "U1", MINUTE);
      // Act
      const otherToken = await budget.take("T1#B", "U1", MINUTE);
      const otherTeam = await budget.take("T2#A", "U2", MINUTE);
      const sameToken = await budget.take("T1#A", "U2", MINUTE);
      // Assess
      expect([otherToken.ok, otherTeam.ok, sameToken.ok]).toEqual([true, true, false]);
    });

    it("never admits more than the limits in any rolling minute, whoever comes when", async () => {
      // Prepare: 12 users on one token with small limits, each calling at its slot or anew
      const budget = await budgetWith({ usersPerWindow: 4, perUserPerWindow: 2, marginMs: 1_000 });
      const admitted: Array<{ user: string; at: number }> = [];
      let seed = 7;
      const next = () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed / 2 ** 31;
      };
      const waiting = new Map<string, number>();
      // Act: 200 takes at increasing times, a waiting user mostly back at its slot
      let now = MINUTE;
      for (let i = 0; i < 200; i++) {
        now += Math.floor(next() * 8_000);
        const user = `U${Math.floor(next() * 12)}`;
        const slotAt = waiting.get(user);
        const at = slotAt !== undefined && slotAt > now && next() < 0.7 ? slotAt : now;
        now = Math.max(now, at);
        const slot = await budget.take("T1#A", user, at);
        if (slot.ok) {
          admitted.push({ user, at });
          waiting.delete(user);
        } else waiting.set(user, slot.retryAt);
      }
      // Assess: every rolling minute, starting at each admitted call
      expect(admitted.length).toBeGreaterThan(20);
      for (const first of admitted) {
        const inMinute = admitted.filter((a) => a.at >= first.at && a.at < first.at + 60_000);
        expect(inMinute.length).toBeLessThanOrEqual(4);
        const own = inMinute.filter((a) => a.user === first.user);
        expect(own.length).toBeLessThanOrEqual(2);
      }
    });
  });
}
