import { GetItemCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { DynamoRateBudget } from "#lib/store/dynamo-rate-budget";
import { dynaliteForFile } from "../../support/dynalite";

const dynamo = dynaliteForFile();

const MINUTE = Date.UTC(2025, 2, 3, 9, 0, 0);

const bookOf = async (tokenId: string) =>
  (
    await dynamo.client.send(
      new GetItemCommand({
        TableName: dynamo.tableName,
        Key: { PK: { S: `BUDGET#${tokenId}` }, SK: { S: "BOOK" } },
        ConsistentRead: true,
      }),
    )
  ).Item;

describe("DynamoRateBudget", () => {
  it("keeps one item per token, with one slot per take, and never books the same room twice under concurrent takes", async () => {
    // Prepare
    const budget = new DynamoRateBudget(dynamo.client, dynamo.tableName, { usersPerWindow: 3 });
    const users = ["U1", "U2", "U3", "U4", "U5"];
    // Act: all at once
    const slots = await Promise.all(users.map((u) => budget.take("T1#ADMIN", u, MINUTE)));
    // Assess
    expect(slots.filter((s) => s.ok)).toHaveLength(3);
    expect(slots.filter((s) => !s.ok)).toEqual([
      { ok: false, retryAt: MINUTE + 62_000 },
      { ok: false, retryAt: MINUTE + 62_000 },
    ]);
    const item = await bookOf("T1#ADMIN");
    expect(JSON.parse(item?.slots?.S ?? "[]")).toHaveLength(5);
    expect(item?.version).toEqual({ N: "5" });
    // TTL deletes the book once its last slot's window and the keep time have passed.
    expect(Number(item?.expiresAt?.N ?? 0)).toBeGreaterThan((MINUTE + 62_000) / 1000);
  });

  it("answers a caller early for its slot from a read alone", async () => {
    // Prepare
    const budget = new DynamoRateBudget(dynamo.client, dynamo.tableName, { usersPerWindow: 1 });
    await budget.take("T2#ADMIN", "U1", MINUTE);
    await budget.take("T2#ADMIN", "U2", MINUTE);
    const before = await bookOf("T2#ADMIN");
    // Act
    const early = await budget.take("T2#ADMIN", "U2", MINUTE + 10_000);
    // Assess
    expect(early).toEqual({ ok: false, retryAt: MINUTE + 62_000 });
    expect((await bookOf("T2#ADMIN"))?.version).toEqual(before?.version);
  });
});
