import { DynamoUpkeepSchedule } from "#lib/store/dynamo-upkeep-schedule";
import { describeUpkeepScheduleContract } from "../../contract/upkeep-schedule.contract";
import { tablePerTest } from "../../support/dynalite-tables";

// One dynalite for the file, a fresh table for each test.
const freshTable = tablePerTest("upkeep-contract");

describeUpkeepScheduleContract("DynamoUpkeepSchedule over dynalite", async () => {
  const { client, tableName, cleanup } = await freshTable();
  return { schedule: new DynamoUpkeepSchedule(client, tableName), cleanup };
});
