import { afterEach, describe, expect, it } from "vitest";
import type { RateBudget } from "../../lib/core/ports";

/**
 * What every RateBudget promises (lib/core/ports.ts, spec 8.1), run against each adapter: per
 * token and fixed minute, a limited number of distinct users, and per user a limited number of
 * calls; a refusal names the start of the next minute.
 */
export interface RateBudgetUnderTest {
  budget: RateBudget;
  cleanup(): Promise<void>;
}

export interface RateBudgetLimits {
  perUserPerWindow?: number;
  usersPerWindow?: number;
}

const MINUTE = Date.UTC(2025, 2, 3, 9, 0, 0);
const NEXT_MINUTE = MINUTE + 60_000;

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

    it("admits 5 calls per user and token in a fixed minute, then refuses until the next", async () => {
      // Prepare
      const budget = await budgetWith();
      // Act
      const slots = [];
      for (let i = 0; i < 7; i++) slots.push(await budget.take("T1#A", "U1", MINUTE + i * 8_000));
      const lastMoment = await budget.take("T1#A", "U1", NEXT_MINUTE - 1);
      const nextMinute = await budget.take("T1#A", "U1", NEXT_MINUTE);
      // Assess
      expect(slots.map((s) => s.ok)).toEqual([true, true, true, true, true, false, false]);
      expect(slots[5]).toEqual({ ok: false, retryAt: NEXT_MINUTE });
      expect(lastMoment).toEqual({ ok: false, retryAt: NEXT_MINUTE });
      expect(nextMinute).toEqual({ ok: true });
    });

    it("admits 15 distinct users per token in a fixed minute, even all at once, and keeps their places", async () => {
      // Prepare
      const budget = await budgetWith();
      const users = Array.from({ length: 20 }, (_, i) => `U${i}`);
      // Act: all at once, as concurrent workers would
      const slots = await Promise.all(users.map((u) => budget.take("T1#A", u, MINUTE + 5_000)));
      const admitted = users.filter((_, i) => slots[i]?.ok);
      const refused = users.filter((_, i) => !slots[i]?.ok);
      const admittedAgain = await budget.take("T1#A", admitted[0] ?? "", MINUTE + 6_000);
      const refusedAgain = await budget.take("T1#A", refused[0] ?? "", MINUTE + 6_000);
      const refusedNextMinute = await budget.take("T1#A", refused[0] ?? "", NEXT_MINUTE);
      // Assess
      expect(admitted).toHaveLength(15);
      for (const slot of slots.filter((s) => !s.ok)) {
        expect(slot).toEqual({ ok: false, retryAt: NEXT_MINUTE });
      }
      expect(admittedAgain).toEqual({ ok: true });
      expect(refusedAgain).toEqual({ ok: false, retryAt: NEXT_MINUTE });
      expect(refusedNextMinute).toEqual({ ok: true });
    });

    it("keeps a user's place in the minute after its own calls ran out", async () => {
      // Prepare
      const budget = await budgetWith({ usersPerWindow: 2, perUserPerWindow: 1 });
      await budget.take("T1#A", "U1", MINUTE);
      // Act
      const spent = await budget.take("T1#A", "U1", MINUTE + 1);
      const second = await budget.take("T1#A", "U2", MINUTE + 2);
      const third = await budget.take("T1#A", "U3", MINUTE + 3);
      // Assess
      expect([spent.ok, second.ok, third.ok]).toEqual([false, true, false]);
    });

    it("counts each token apart, and each user apart within a token", async () => {
      // Prepare
      const budget = await budgetWith({ usersPerWindow: 1, perUserPerWindow: 1 });
      await budget.take("T1#A", "U1", MINUTE);
      // Act
      const otherToken = await budget.take("T1#B", "U1", MINUTE);
      const otherTokenOtherUser = await budget.take("T2#A", "U2", MINUTE);
      const sameTokenOtherUser = await budget.take("T1#A", "U2", MINUTE);
      // Assess
      expect([otherToken.ok, otherTokenOtherUser.ok, sameTokenOtherUser.ok]).toEqual([
        true,
        true,
        false,
      ]);
    });

    it("takes its limits as options, and starts every minute afresh", async () => {
      // Prepare
      const budget = await budgetWith({ usersPerWindow: 3, perUserPerWindow: 2 });
      // Act
      const calls = [];
      for (let i = 0; i < 3; i++) calls.push((await budget.take("T1#A", "U1", MINUTE)).ok);
      const users = [];
      for (const u of ["U2", "U3", "U4"]) users.push((await budget.take("T1#A", u, MINUTE)).ok);
      const laterMinute = await budget.take("T1#A", "U4", MINUTE + 5 * 60_000);
      // Assess
      expect(calls).toEqual([true, true, false]);
      expect(users).toEqual([true, true, false]);
      expect(laterMinute).toEqual({ ok: true });
    });
  });
}
