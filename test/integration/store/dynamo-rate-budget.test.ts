import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoRateBudget } from "../../../lib/store/dynamo-rate-budget";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";

let dynamo: LocalDynamo;
beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => {
  await dynamo.close();
});

const MINUTE = Date.UTC(2025, 2, 3, 9, 0, 0);

describe("DynamoRateBudget", () => {
  it("admits at most 15 distinct users per token in a fixed minute and refuses the rest until the next", async () => {
    // Prepare
    const budget = new DynamoRateBudget(dynamo.client, dynamo.tableName);
    const users = Array.from({ length: 20 }, (_, i) => `U${i}`);
    // Act: all at once, as concurrent workers would.
    const slots = await Promise.all(users.map((u) => budget.take("T1#ADMIN", u, MINUTE + 5_000)));
    const again = await budget.take("T1#ADMIN", "U19", MINUTE + 59_000);
    const nextMinute = await budget.take("T1#ADMIN", "U19", MINUTE + 60_000);
    // Assess
    expect(slots.filter((s) => s.ok)).toHaveLength(15);
    for (const s of slots.filter((s) => !s.ok))
      expect(s).toEqual({ ok: false, retryAt: MINUTE + 60_000 });
    // The minute stays full for a user it refused, and open to one it admitted.
    expect(again.ok).toBe(slots[19]?.ok);
    expect(nextMinute).toEqual({ ok: true });
  });

  it("admits at most 5 calls per user and token in a fixed minute, counting each token apart", async () => {
    // Prepare
    const budget = new DynamoRateBudget(dynamo.client, dynamo.tableName);
    // Act
    const slots = [];
    for (let i = 0; i < 7; i++) slots.push(await budget.take("T2#U1", "U1", MINUTE + i * 1_000));
    const otherToken = await budget.take("T2#U2", "U1", MINUTE + 8_000);
    // Assess
    expect(slots.map((s) => s.ok)).toEqual([true, true, true, true, true, false, false]);
    expect(otherToken).toEqual({ ok: true });
  });

  it("takes its limits as options", async () => {
    // Prepare
    const budget = new DynamoRateBudget(dynamo.client, dynamo.tableName, {
      usersPerWindow: 1,
      perUserPerWindow: 1,
    });
    // Act
    const first = await budget.take("T3#A", "U1", MINUTE);
    const secondUser = await budget.take("T3#A", "U2", MINUTE);
    const secondCall = await budget.take("T3#A", "U1", MINUTE);
    // Assess
    expect([first.ok, secondUser.ok, secondCall.ok]).toEqual([true, false, false]);
  });
});
