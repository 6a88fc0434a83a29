import { type DynamoDBClient, QueryCommand, ScanCommand } from "@aws-sdk/client-dynamodb";
import { VersionConflict } from "#lib/core/ports";
import { StoreError } from "./errors";
import { type Item, n } from "./items/codec";
import { DUE_INDEX, POLL_INDEX } from "./table";

/** The hash and range attribute names of each index, as the table defines them. */
const INDEX_KEYS: Record<string, { hash: string; range: string }> = {
  [DUE_INDEX]: { hash: "GSI1PK", range: "GSI1SK" },
  [POLL_INDEX]: { hash: "GSI2PK", range: "GSI2SK" },
};

/** An inclusive range of an index's numeric sort key. */
export interface IndexRange {
  low: number;
  high: number;
}

/** A store error as is; anything else the SDK threw, wrapped with its message. */
export const wrapStoreError = (error: unknown): StoreError | VersionConflict =>
  error instanceof StoreError || error instanceof VersionConflict
    ? error
    : new StoreError(
        `DynamoDB call failed: ${error instanceof Error ? error.message : String(error)}`,
        "dynamodb_failed",
        { cause: error },
      );

/** Every item a paginated Query or Scan returns, following LastEvaluatedKey to the end. */
export async function allPages(
  client: DynamoDBClient,
  page: (start: Item | undefined) => QueryCommand | ScanCommand,
): Promise<Item[]> {
  const items: Item[] = [];
  let start: Item | undefined;
  do {
    const command = page(start);
    let out: { Items?: Item[]; LastEvaluatedKey?: Item };
    try {
      out = await (command instanceof QueryCommand ? client.send(command) : client.send(command));
    } catch (error: unknown) {
      throw wrapStoreError(error);
    }
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items;
}

/** The entries of one index partition whose sort key is within `range`. */
export function queryIndex(
  client: DynamoDBClient,
  tableName: string,
  index: string,
  hash: string,
  range: IndexRange,
): Promise<Item[]> {
  const keys = INDEX_KEYS[index];
  if (keys === undefined) throw new StoreError(`no index named ${index}`, "dynamodb_failed");
  return allPages(
    client,
    (start) =>
      new QueryCommand({
        TableName: tableName,
        IndexName: index,
        KeyConditionExpression: "#h = :h AND #r BETWEEN :low AND :high",
        ExpressionAttributeNames: { "#h": keys.hash, "#r": keys.range },
        ExpressionAttributeValues: {
          ":h": { S: hash },
          ":low": n(range.low),
          ":high": n(range.high),
        },
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
  );
}

/**
 * The profile items whose `attribute` is `value`. A scan: uninstalling and the CLI's lookup are
 * rare, and an index by team or by user id would cost a write on every user change.
 */
export function scanProfiles(
  client: DynamoDBClient,
  tableName: string,
  attribute: "team" | "user",
  value: string,
): Promise<Item[]> {
  return allPages(
    client,
    (start) =>
      new ScanCommand({
        TableName: tableName,
        FilterExpression: "#sk = :profile AND #attribute = :value",
        ExpressionAttributeNames: { "#sk": "SK", "#attribute": attribute },
        ExpressionAttributeValues: { ":profile": { S: "PROFILE" }, ":value": { S: value } },
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
  );
}
