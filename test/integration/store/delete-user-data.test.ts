import { ScanCommand } from "@aws-sdk/client-dynamodb";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DynamoRateBudget } from "#lib/store/dynamo-rate-budget";
import { DynamoStore } from "#lib/store/dynamo-store";
import { DynamoSyncGate } from "#lib/store/dynamo-sync-gate";
import { ALICE, aUser, BOB, T0 } from "../../contract/status-store.fixtures";
import { type LocalDynamo, startDynalite } from "../../support/dynalite";

// What only the DynamoDB adapter keeps outside the user's partition: the sync gates of their
// sources and the rate budget of their own token. Disconnecting deletes those too.

let dynamo: LocalDynamo;
beforeEach(async () => {
  dynamo = await startDynalite();
});
afterEach(async () => {
  await dynamo.close();
});

const keysOfTable = async (): Promise<string[]> => {
  const out = await dynamo.client.send(new ScanCommand({ TableName: dynamo.tableName }));
  return (out.Items ?? []).map((i) => `${i.PK?.S} ${i.SK?.S}`).sort();
};

describe("DynamoStore.deleteUserData", () => {
  it("deletes the user's sync gates and own-token budget counters, and leaves Bob's", async () => {
    // Prepare
    const store = new DynamoStore(dynamo.client, dynamo.tableName);
    const gate = new DynamoSyncGate(dynamo.client, dynamo.tableName);
    const budget = new DynamoRateBudget(dynamo.client, dynamo.tableName);
    for (const key of [ALICE, BOB]) {
      await store.putUser(aUser(key), undefined);
      await gate.request({ ...key, sourceId: "work" }, T0);
      await budget.take(`${key.team}#${key.user}`, key.user, T0);
    }
    const bobs = (await keysOfTable()).filter((k) => k.includes(BOB.user));
    const alices = (await keysOfTable()).filter((k) => k.includes(ALICE.user));
    // The profile partition, the sync gate and the budget's book of her own token.
    expect(alices.length).toBeGreaterThanOrEqual(3);
    expect(alices).toContain(`BUDGET#${ALICE.team}#${ALICE.user} BOOK`);
    // Act
    await store.deleteUserData(ALICE);
    // Assess
    expect(await keysOfTable()).toEqual(bobs);
  });
});
