import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
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
  UPKEEP_CLAIM_NAMES,
  UPKEEP_DUE_PARTITION,
  upkeepDueOf,
  upkeepFromItem,
  upkeepKeys,
  upkeepToItem,
} from "./items/upkeep";
import { DUE_INDEX } from "./table";

/**
 * The push upkeep schedule in DynamoDB (lib/store/items/upkeep.ts): a put sets the next instant
 * (and drops any claim), a conditional UpdateItem claims an existing one, a conditional PutItem
 * parks an existing one, one Query on the due index finds what is due.
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

  /**
   * One conditional UpdateItem on an existing entry. A missing entry is not created: the claim
   * answers it due now, holds nothing and writes nothing, and the upkeep that follows creates it
   * with `set` only once it has found the source still connected. Creating it here (an upsert,
   * as before) let an upkeep message that came after the user's data was deleted (a repair the
   * poll queued just before, a lifecycle notification, a tick that read the index before the
   * deletion showed) write a new item into the deleted partition and then park it there, where
   * nothing deletes it: the sync worker may not DeleteItem, and dynalite (so the local stack and
   * every test) has no TTL to expire it. Writing nothing keeps the repair of a source whose
   * entry was lost working (its upkeep still runs, and `set` writes the entry back); what it
   * gives up is the lease on that first upkeep, so connecting (the usual first upkeep) sets the
   * entry before it claims it (lib/app/connect/flow.ts).
   */
  async claim(
    key: UserKey,
    sourceId: string,
    now: number,
    leaseUntil: number,
  ): Promise<UpkeepEntry | undefined> {
    const keys = upkeepKeys(key, sourceId);
    const Key = { PK: s(keys.PK), SK: s(keys.SK) };
    try {
      const out = await this.client.send(
        new UpdateItemCommand({
          TableName: this.tableName,
          Key,
          // A parked entry is due now; a scheduled one keeps its instant while claimed.
          UpdateExpression:
            "SET #leaseUntil = :lease, #duePk = :duePk, #dueAt = if_not_exists(#dueAt, :now)",
          ConditionExpression:
            "attribute_exists(#pk) AND (attribute_not_exists(#leaseUntil) OR #leaseUntil <= :now)",
          ExpressionAttributeNames: UPKEEP_CLAIM_NAMES,
          ExpressionAttributeValues: {
            ":lease": n(leaseUntil),
            ":now": n(now),
            ":duePk": s(UPKEEP_DUE_PARTITION),
          },
          ReturnValues: "ALL_OLD",
        }),
      );
      const old = out.Attributes;
      // A parked entry is due now (the update gave it that instant).
      return old?.GSI1SK !== undefined
        ? upkeepFromItem(old)
        : { key, sourceId, dueAt: now, failures: 0 };
    } catch (error: unknown) {
      if (!(error instanceof ConditionalCheckFailedException)) throw wrap(error);
    }
    // Refused: held by another worker, or there is no entry (dynalite cannot return the item
    // with the refusal, so a read tells them apart; both are rare).
    const found = await this.call(() =>
      this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key,
          ConsistentRead: true,
          ProjectionExpression: "PK",
        }),
      ),
    );
    return found.Item === undefined ? { key, sourceId, dueAt: now, failures: 0 } : undefined;
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

  /** Only an existing entry is parked: a missing one (the user's data deleted) stays missing. */
  async park(key: UserKey, sourceId: string): Promise<void> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: parkedUpkeepItem(key, sourceId),
          ConditionExpression: "attribute_exists(PK)",
        }),
      );
    } catch (error: unknown) {
      if (!(error instanceof ConditionalCheckFailedException)) throw wrap(error);
    }
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
