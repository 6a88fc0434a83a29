import {
  type AttributeValue,
  BatchGetItemCommand,
  type BatchGetItemCommandOutput,
  type DynamoDBClient,
} from "@aws-sdk/client-dynamodb";
import { StoreError } from "./errors";
import type { Item } from "./items/codec";

/** BatchGetItem's limit of keys per request, and the rounds its unprocessed keys get. */
const BATCH_GET_MAX = 100;
const BATCH_GET_ROUNDS = 8;

/**
 * The items under the table keys of `entries` (index entries that project less than the item),
 * strongly consistent, in BatchGetItem requests of up to 100 keys, retrying what DynamoDB leaves
 * unprocessed. Items deleted since the index answered are left out.
 */
export async function getItemsOf(
  client: DynamoDBClient,
  tableName: string,
  entries: Item[],
): Promise<Item[]> {
  const items: Item[] = [];
  for (let i = 0; i < entries.length; i += BATCH_GET_MAX) {
    let keys: Item[] | undefined = entries
      .slice(i, i + BATCH_GET_MAX)
      .map((e) => ({ PK: e.PK as AttributeValue, SK: e.SK as AttributeValue }));
    for (let round = 0; keys !== undefined && keys.length > 0; round++) {
      if (round >= BATCH_GET_ROUNDS) {
        throw new StoreError("BatchGetItem left keys unprocessed", "dynamodb_failed");
      }
      const request: Item[] = keys;
      let out: BatchGetItemCommandOutput;
      try {
        out = await client.send(
          new BatchGetItemCommand({
            RequestItems: { [tableName]: { Keys: request, ConsistentRead: true } },
          }),
        );
      } catch (error: unknown) {
        throw new StoreError(
          `DynamoDB call failed: ${error instanceof Error ? error.message : String(error)}`,
          "dynamodb_failed",
          { cause: error },
        );
      }
      items.push(...(out.Responses?.[tableName] ?? []));
      keys = out.UnprocessedKeys?.[tableName]?.Keys;
    }
  }
  return items;
}
