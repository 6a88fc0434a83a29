import { DescribeTableCommand, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { LOCAL_CREDENTIALS, startLocalDynamo } from "#devstack/dynamo";
import { createTableInput } from "#lib/store/table";

describe("startLocalDynamo", () => {
  it("starts dynalite on loopback with the shared table already active", async () => {
    // Prepare
    const dynamo = await startLocalDynamo({
      table: createTableInput("sp-local"),
      tableName: "sp-local",
    });
    const client = new DynamoDBClient({
      endpoint: dynamo.endpoint,
      region: "us-east-1",
      credentials: LOCAL_CREDENTIALS,
    });
    try {
      // Act
      const { Table } = await client.send(new DescribeTableCommand({ TableName: "sp-local" }));
      // Assess
      expect(dynamo.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(Table?.TableStatus).toBe("ACTIVE");
      expect(Table?.GlobalSecondaryIndexes?.map((i) => i.IndexName).sort()).toEqual([
        "due",
        "poll",
      ]);
    } finally {
      client.destroy();
      await dynamo.close();
    }
  });
});
