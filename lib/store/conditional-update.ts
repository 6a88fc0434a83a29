import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { StoreError } from "./errors";
import { s } from "./items/codec";

/** An UpdateItem's own part: everything but the table and the key. */
export type UpdateParts = Omit<
  ConstructorParameters<typeof UpdateItemCommand>[0],
  "TableName" | "Key"
>;

/**
 * One conditional UpdateItem: true when applied, false when its condition refused it. Any other
 * failure is a StoreError, so callers tell a lost race from a broken call.
 */
export async function conditionalUpdate(
  client: DynamoDBClient,
  tableName: string,
  keys: { PK: string; SK: string },
  update: UpdateParts,
): Promise<boolean> {
  try {
    await client.send(
      new UpdateItemCommand({
        TableName: tableName,
        Key: { PK: s(keys.PK), SK: s(keys.SK) },
        ...update,
      }),
    );
    return true;
  } catch (error: unknown) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw new StoreError(
      `DynamoDB call failed: ${error instanceof Error ? error.message : String(error)}`,
      "dynamodb_failed",
      { cause: error },
    );
  }
}
