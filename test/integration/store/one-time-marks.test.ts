import { GetItemCommand } from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { DynamoOneTimeMarks } from "#lib/store/dynamo-one-time-marks";
import { oneTimeGrantKeys } from "#lib/store/items/one-time-grant";
import { oneTimeMarkKeys } from "#lib/store/items/one-time-mark";
import { oneTimeMarksContract } from "../../contract/one-time-marks.contract";
import { dynaliteForFile } from "../../support/dynalite";

const dynamo = dynaliteForFile();

oneTimeMarksContract(
  "DynamoDB (dynalite)",
  () => new DynamoOneTimeMarks(dynamo.client, dynamo.tableName),
);

describe("DynamoOneTimeMarks", () => {
  it("stores the mark with a TTL in epoch seconds, so AWS deletes it after its expiry", async () => {
    // Prepare
    const marks = new DynamoOneTimeMarks(dynamo.client, dynamo.tableName);
    const expiresAt = Date.UTC(2025, 2, 3, 9, 10, 0) + 500;
    // Act
    await marks.consume("ttl-check", expiresAt, expiresAt - 600_000);
    const got = await dynamo.client.send(
      new GetItemCommand({
        TableName: dynamo.tableName,
        Key: { PK: { S: oneTimeMarkKeys("ttl-check").PK }, SK: { S: "ONCE" } },
      }),
    );
    // Assess: the TTL is the expiry rounded up to the next whole second.
    expect(got.Item?.expiresAt).toEqual({ N: String(Date.UTC(2025, 2, 3, 9, 10, 1) / 1000) });
  });

  it("stores a grant with its payload and a TTL in epoch seconds, and marks it when taken", async () => {
    // Prepare
    const marks = new DynamoOneTimeMarks(dynamo.client, dynamo.tableName);
    const expiresAt = Date.UTC(2025, 2, 3, 9, 10, 0) + 500;
    const keys = oneTimeGrantKeys("ttl-grant");
    const read = async () =>
      (
        await dynamo.client.send(
          new GetItemCommand({
            TableName: dynamo.tableName,
            Key: { PK: { S: keys.PK }, SK: { S: keys.SK } },
          }),
        )
      ).Item;
    // Act
    await marks.grant("ttl-grant", "whom", expiresAt);
    const granted = await read();
    await marks.take("ttl-grant", expiresAt - 1000);
    const taken = await read();
    // Assess: the TTL is the expiry rounded up to the next whole second.
    expect(granted?.expiresAt).toEqual({ N: String(Date.UTC(2025, 2, 3, 9, 10, 1) / 1000) });
    expect(granted?.payload).toEqual({ S: "whom" });
    expect(granted?.takenAtMs).toBeUndefined();
    expect(taken?.takenAtMs).toEqual({ N: String(expiresAt - 1000) });
  });
});
