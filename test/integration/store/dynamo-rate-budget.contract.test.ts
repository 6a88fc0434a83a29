import { DeleteTableCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, beforeAll } from "vitest";
import { DynamoRateBudget } from "#lib/store/dynamo-rate-budget";
import { describeRateBudgetContract } from "../../contract/rate-budget.contract";
import { createActiveTable, type LocalDynamo, startDynalite } from "../../support/dynalite";

let dynamo: LocalDynamo;
let tables = 0;

beforeAll(async () => {
  dynamo = await startDynalite();
});
afterAll(async () => {
  await dynamo.close();
});

// One dynalite for the file, a fresh table for each budget.
describeRateBudgetContract("DynamoRateBudget over dynalite", async (limits) => {
  const tableName = `budget-contract-${++tables}`;
  await createActiveTable(dynamo.client, tableName);
  return {
    budget: new DynamoRateBudget(dynamo.client, tableName, limits),
    cleanup: async () => {
      await dynamo.client.send(new DeleteTableCommand({ TableName: tableName }));
    },
  };
});
