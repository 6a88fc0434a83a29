import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll } from "vitest";
import { DynamoStore } from "#lib/store/dynamo-store";
import { describeStatusStoreContract } from "../../contract/status-store.contract";
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
describeStatusStoreContract("DynamoStore over dynalite", async () => {
  const tableName = `contract-${++tables}`;
  await createActiveTable(dynamo.client, tableName);
  return {
    store: new DynamoStore(dynamo.client, tableName),
    cleanup: async () => {
      await dynamo.client.send(new DeleteTableCommand({ TableName: tableName }));
    },
  };
});
