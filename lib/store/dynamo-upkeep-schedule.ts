import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  type DynamoDBClient,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import type { UserKey } from "#lib/core/types";
import type { UpkeepDue, UpkeepEntry, UpkeepSchedule } from "#lib/core/upkeep-schedule";
import { StoreError } from "./errors";
import { type Item, n, s } from "./items/codec";
import {
  parkedUpkeepItem,
  UPKEEP_DUE_PARTITION,
  UPKEEP_NAMES,
  upkeepDueOf,
  upkeepFromItem,
  upkeepKeys,
  upkeepToItem,
} from "./items/upkeep";
import { DUE_INDEX } from "./table";

/**
 * The push upkeep schedule in DynamoDB (lib/store/items/upkeep.ts): a put sets the next instant
 * (and drops any claim), a conditional UpdateItem claims, one Query on the due index finds what
 * is due.
 */
export class DynamoUpkeepSchedule implements UpkeepSchedule {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async set(entry: UpkeepEntry): Promise<void> {
    await this.call(() =>
      this.client.send(
        new PutItemCommand({ TableName: this.tableName, Item: upkeepToItem(entry) }),
      ),
    );
  }

  async claim(
    key: UserKey,
    sourceId: string,
    now: number,
    leaseUntil: number,
  ): Promise<UpkeepEntry | undefined> {
    const keys = upkeepKeys(key, sourceId);
    try {
      const out = await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key: { PK: s(keys.PK), SK: s(keys.SK) },
          // A new entry is due now; an existing one keeps its instant while claimed.
          UpdateExpression:
            "SET #leaseUntil = :lease, #team = :team, #user = :user, #duePk = :duePk, #dueAt = if_not_exists(#dueAt, :now)",
          ConditionExpression: "attribute_not_exists(#leaseUntil) OR #leaseUntil <= :now",
          ExpressionAttributeNames: UPKEEP_NAMES,
          ExpressionAttributeValues: {
            ":lease": n(leaseUntil),
            ":now": n(now),
            ":team": s(key.team),
            ":user": s(key.user),
            ":duePk": s(UPKEEP_DUE_PARTITION),
          },
          ReturnValues: "ALL_OLD",
        }),
      );
      const old = out.Attributes;
      // A new or parked entry is due now (the update gave it that instant).
      return old?.GSI1SK !== undefined
        ? upkeepFromItem(old)
        : { key, sourceId, dueAt: now, failures: 0 };
    } catch (error: unknown) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw wrap(error);
    }
  }

  async remove(key: UserKey, sourceId: string): Promise<void> {
    const keys = upkeepKeys(key, sourceId);
    await this.call(() =>
      this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { PK: s(keys.PK), SK: s(keys.SK) },
        }),
      ),
    );
  }

  async park(key: UserKey, sourceId: string): Promise<void> {
    await this.call(() =>
      this.client.send(
        new PutItemCommand({ TableName: this.tableName, Item: parkedUpkeepItem(key, sourceId) }),
      ),
    );
  }

  async dueBy(now: number): Promise<UpkeepDue[]> {
    const due: UpkeepDue[] = [];
    let start: Item | undefined;
    do {
      const out = await this.call(() =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: DUE_INDEX,
            KeyConditionExpression: "#duePk = :duePk AND #dueAt <= :now",
            ExpressionAttributeNames: { "#duePk": "GSI1PK", "#dueAt": "GSI1SK" },
            ExpressionAttributeValues: { ":duePk": s(UPKEEP_DUE_PARTITION), ":now": n(now) },
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        ),
      );
      for (const item of out.Items ?? []) due.push(upkeepDueOf(item));
      start = out.LastEvaluatedKey;
    } while (start);
    return due;
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error: unknown) {
      throw wrap(error);
    }
  }
}

const wrap = (error: unknown): StoreError =>
  error instanceof StoreError
    ? error
    : new StoreError(
        `DynamoDB call failed: ${error instanceof Error ? error.message : String(error)}`,
        "dynamodb_failed",
        { cause: error },
      );
