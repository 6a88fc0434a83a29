import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ManualClock } from "#lib/core/clock";
import { TokenBudget } from "#lib/service/budget";

const T0 = Date.UTC(2025, 0, 6, 9, 0, 0);

describe("TokenBudget", () => {
  it("allows a small burst for one user, then answers when the next slot frees", () => {
    // Prepare
    const clock = new ManualClock(T0);
    const budget = new TokenBudget({ clock, burst: 3 });
    // Act
    const first = [1, 2, 3].map(() => budget.tryTake("tok", "U1"));
    const fourth = budget.tryTake("tok", "U1");
    // Assess
    expect(first.every((d) => d.ok)).toBe(true);
    expect(fourth).toEqual({ ok: false, retryAt: T0 + 6000 });
  });

  it("grants the refused call once its retryAt has come", () => {
    // Prepare
    const clock = new ManualClock(T0);
    const budget = new TokenBudget({ clock, burst: 1 });
    budget.tryTake("tok", "U1");
    const refused = budget.tryTake("tok", "U1");
    if (refused.ok) throw new Error("expected a refusal");
    // Act
    clock.set(refused.retryAt);
    const later = budget.tryTake("tok", "U1");
    // Assess
    expect(later.ok).toBe(true);
  });

  it("refuses a 31st distinct user until the least recent user leaves the minute", () => {
    // Prepare
    const clock = new ManualClock(T0);
    const budget = new TokenBudget({ clock });
    for (let i = 0; i < 30; i++) {
      expect(budget.tryTake("tok", `U${i}`).ok).toBe(true);
      clock.advance(100);
    }
    // Act
    const refused = budget.tryTake("tok", "U30");
    const sameUserStillFine = budget.tryTake("tok", "U29");
    // Assess
    expect(refused).toEqual({ ok: false, retryAt: T0 + 60_000 });
    expect(sameUserStillFine.ok).toBe(true);
  });

  it("keeps separate budgets per token", () => {
    // Prepare
    const clock = new ManualClock(T0);
    const budget = new TokenBudget({ clock, burst: 1 });
    budget.tryTake("a", "U1");
    // Act
    const other = budget.tryTake("b", "U1");
    // Assess
    expect(other.ok).toBe(true);
  });

  it("never lets more than 10 calls per user or 30 users into any rolling minute", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 4000 }), fc.integer({ min: 0, max: 40 })), {
          maxLength: 400,
        }),
        fc.integer({ min: 1, max: 10 }),
        (steps, burst) => {
          // Prepare
          const clock = new ManualClock(T0);
          const budget = new TokenBudget({ clock, burst });
          const granted: { at: number; user: string }[] = [];
          // Act
          for (const [gap, u] of steps) {
            clock.advance(gap);
            const d = budget.tryTake("tok", `U${u}`);
            if (d.ok) granted.push({ at: clock.now(), user: `U${u}` });
            else expect(d.retryAt).toBeGreaterThan(clock.now());
          }
          // Assess
          for (const g of granted) {
            const window = granted.filter((x) => x.at > g.at - 60_000 && x.at <= g.at);
            const sameUser = window.filter((x) => x.user === g.user).length;
            expect(sameUser).toBeLessThanOrEqual(10);
            expect(new Set(window.map((x) => x.user)).size).toBeLessThanOrEqual(30);
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
