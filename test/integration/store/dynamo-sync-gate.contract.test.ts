import { DynamoSyncGate } from "#lib/store/dynamo-sync-gate";
import { describeSyncGateContract } from "../../contract/sync-gate.contract";
import { tablePerTest } from "../../support/dynalite-tables";

// One dynalite for the file, a fresh table for each test.
const freshTable = tablePerTest("gate-contract");

describeSyncGateContract("DynamoSyncGate over dynalite", async () => {
  const { client, tableName, cleanup } = await freshTable();
  return { gate: new DynamoSyncGate(client, tableName), cleanup };
});
