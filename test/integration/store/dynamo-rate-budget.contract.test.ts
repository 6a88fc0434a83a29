import { DynamoRateBudget } from "#lib/store/dynamo-rate-budget";
import { describeRateBudgetContract } from "../../contract/rate-budget.contract";
import { tablePerTest } from "../../support/dynalite-tables";

// One dynalite for the file, a fresh table for each budget.
const freshTable = tablePerTest("budget-contract");

describeRateBudgetContract("DynamoRateBudget over dynalite", async (limits) => {
  const { client, tableName, cleanup } = await freshTable();
  return { budget: new DynamoRateBudget(client, tableName, limits), cleanup };
});
