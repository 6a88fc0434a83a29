import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import type { GrantRefusal, GrantTake, OneTimeMarks } from "#lib/core/ports";
import { dynamoFailed, StoreError } from "./errors";
import { type Item, n, readN, readS } from "./items/codec";
import {
  GRANT_PAYLOAD,
  grantNameOf,
  oneTimeGrantKeys,
  oneTimeGrantToItem,
  TAKEN_AT_MS,
} from "./items/one-time-grant";
import { EXPIRES_AT_MS, oneTimeMarkKeys, oneTimeMarkToItem } from "./items/one-time-mark";

/**
 * One-time marks in the table: one conditional PutItem per use. It succeeds only when no mark
 * of that id exists, or the one there has expired (dynalite has no TTL, and AWS deletes late),
 * so of any number of concurrent uses exactly one wins. A grant is one conditional PutItem, and
 * its take one conditional UpdateItem (it exists, has not expired, was not taken) that marks it
 * taken: again exactly one of any number of concurrent takes wins.
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
      throw dynamoFailed(`one-time mark ${id}`, error);
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
      throw dynamoFailed(`one-time mark ${id}`, error);
    }
  }

  async grant(id: string, payload: string, expiresAt: number): Promise<void> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: oneTimeGrantToItem(id, payload, expiresAt),
          ConditionExpression: "attribute_not_exists(#pk)",
          ExpressionAttributeNames: { "#pk": "PK" },
        }),
      );
    } catch (error: unknown) {
      const name = `one-time grant ${grantNameOf(id)}`;
      if (!(error instanceof ConditionalCheckFailedException)) throw dynamoFailed(name, error);
      throw new StoreError(`${name}: the id is taken`, "conflict", { cause: error });
    }
  }

  async take(id: string, now: number): Promise<GrantTake> {
    const keys = oneTimeGrantKeys(id);
    const Key = { PK: { S: keys.PK }, SK: { S: keys.SK } };
    try {
      const taken = await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key,
          UpdateExpression: "SET #takenAtMs = :now",
          ConditionExpression:
            "attribute_exists(#pk) AND #expiresAtMs > :now AND attribute_not_exists(#takenAtMs)",
          ExpressionAttributeNames: {
            "#pk": "PK",
            "#expiresAtMs": EXPIRES_AT_MS,
            "#takenAtMs": TAKEN_AT_MS,
          },
          ExpressionAttributeValues: { ":now": n(now) },
          ReturnValues: "ALL_NEW",
        }),
      );
      return { ok: true, payload: readS(taken.Attributes ?? {}, GRANT_PAYLOAD) };
    } catch (error: unknown) {
      if (!(error instanceof ConditionalCheckFailedException)) {
        throw dynamoFailed(`one-time grant ${grantNameOf(id)}`, error);
      }
    }
    // Refused: a consistent read says why (what refused it stays true: a grant never comes back).
    try {
      const got = await this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key, ConsistentRead: true }),
      );
      return { ok: false, reason: refusalOf(got.Item, now) };
    } catch (error: unknown) {
      throw dynamoFailed(`one-time grant ${grantNameOf(id)}`, error);
    }
  }
}

/** Why the take's condition failed on `item`, as read after it. */
function refusalOf(item: Item | undefined, now: number): GrantRefusal {
  if (item === undefined) return "unknown";
  if (readN(item, EXPIRES_AT_MS) <= now) return "expired";
  return "taken";
}
