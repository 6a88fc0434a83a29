import { DynamoStore } from "#lib/store/dynamo-store";
import { describeStatusStoreContract } from "../../contract/status-store.contract";
import { tablePerTest } from "../../support/dynalite-tables";

// One dynalite for the file, a fresh table for each test.
const freshTable = tablePerTest("contract");

describeStatusStoreContract("DynamoStore over dynalite", async () => {
  const { client, tableName, cleanup } = await freshTable();
  return { store: new DynamoStore(client, tableName), cleanup };
});
