import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll } from "vitest";
import { DynamoUpkeepSchedule } from "#lib/store/dynamo-upkeep-schedule";
import { describeUpkeepScheduleContract } from "../../contract/upkeep-schedule.contract";
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
describeUpkeepScheduleContract("DynamoUpkeepSchedule over dynalite", async () => {
  const tableName = `upkeep-contract-${++tables}`;
  await createActiveTable(dynamo.client, tableName);
  return {
    schedule: new DynamoUpkeepSchedule(dynamo.client, tableName),
    cleanup: async () => {
      await dynamo.client.send(new DeleteTableCommand({ TableName: tableName }));
    },
  };
});
