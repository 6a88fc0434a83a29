import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from "@aws-sdk/client-dynamodb";
import type { OneTimeMarks } from "#lib/core/ports";
import { StoreError } from "./errors";
import { n } from "./items/codec";
import { EXPIRES_AT_MS, oneTimeMarkKeys, oneTimeMarkToItem } from "./items/one-time-mark";

/**
 * One-time marks in the table: one conditional PutItem per use. It succeeds only when no mark
 * of that id exists, or the one there has expired (dynalite has no TTL, and AWS deletes late),
 * so of any number of concurrent uses exactly one wins.
 */
export class DynamoOneTimeMarks implements OneTimeMarks {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async consume(id: string, expiresAt: number, now: number): Promise<boolean> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: oneTimeMarkToItem(id, expiresAt),
          ConditionExpression: "attribute_not_exists(#pk) OR #expiresAtMs <= :now",
          ExpressionAttributeNames: { "#pk": "PK", "#expiresAtMs": EXPIRES_AT_MS },
          ExpressionAttributeValues: { ":now": n(now) },
        }),
      );
      return true;
    } catch (error: unknown) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw new StoreError(`one-time mark ${id}: DynamoDB failed`, "dynamodb_failed", {
        cause: error,
      });
    }
  }

  /** A consistent read: a mark consumed a moment ago (a sign-out) must already count. */
  async taken(id: string, now: number): Promise<boolean> {
    const keys = oneTimeMarkKeys(id);
    try {
      const got = await this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: { PK: { S: keys.PK }, SK: { S: keys.SK } },
          ConsistentRead: true,
          ProjectionExpression: "#expiresAtMs",
          ExpressionAttributeNames: { "#expiresAtMs": EXPIRES_AT_MS },
        }),
      );
      const expiresAt = Number(got.Item?.[EXPIRES_AT_MS]?.N ?? Number.NaN);
      return expiresAt > now;
    } catch (error: unknown) {
      throw new StoreError(`one-time mark ${id}: DynamoDB failed`, "dynamodb_failed", {
        cause: error,
      });
    }
  }
}
