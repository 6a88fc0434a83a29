import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  PutItemCommand,
} from "@aws-sdk/client-dynamodb";
import type { OneTimeMarks } from "#lib/core/ports";
import { StoreError } from "./errors";
import { n } from "./items/codec";
import { EXPIRES_AT_MS, oneTimeMarkToItem } from "./items/one-time-mark";

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
}
