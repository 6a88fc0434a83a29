import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll } from "vitest";
import { DynamoSyncGate } from "#lib/store/dynamo-sync-gate";
import { describeSyncGateContract } from "../../contract/sync-gate.contract";
import { createActiveTable, type LocalDynamo, startDynalite } from "../../support/dynalite";

let dynamo: LocalDynamo;
let tables = 0;

beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => {
  await dynamo.close();
});

// One dynalite for the file, a fresh table for each test.
describeSyncGateContract("DynamoSyncGate over dynalite", async () => {
  const tableName = `gate-contract-${++tables}`;
  await createActiveTable(dynamo.client, tableName);
  return {
    gate: new DynamoSyncGate(dynamo.client, tableName),
    cleanup: async () => {
      await dynamo.client.send(new DeleteTableCommand({ TableName: tableName }));
    },
  };
});
