import {
  ConditionalCheckFailedException,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from "@aws-sdk/client-dynamodb";
import type { RateBudget, RateSlot } from "#lib/core/ports";
import { reserveSlot, type SlotLimits, slotLimitsOf } from "#lib/core/rate-slots";
import { dynamoFailed, StoreError } from "./errors";
import {
  bookExpiryOf,
  bookFromStored,
  bookToJson,
  budgetBookKeys,
  type StoredSlot,
} from "./items/budget";
import { type Item, n, readJson, readN, s } from "./items/codec";
import { TTL_ATTRIBUTE } from "./table";

export type DynamoRateBudgetOptions = Partial<SlotLimits>;

/** Lost races before a take gives up (each loser re-reads; every round one taker wins). */
const MAX_ATTEMPTS = 100;
/** The longest pause between two attempts. */
const MAX_PAUSE_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A small stable number from a user id, to stagger concurrent takers. */
const hashOf = (text: string): number => {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (h * 31 + text.charCodeAt(i)) >>> 0;
  return h;
};

/**
 * The spec 8.1 budget in DynamoDB, shared by every worker: one item per token holds its book of
 * slots (lib/core/rate-slots.ts), read consistently and written back conditionally on its
 * version, so concurrent workers never book the same room twice: a lost race reads again.
 * A caller early for its slot reads only.
 */
export class DynamoRateBudget implements RateBudget {
  private readonly limits: SlotLimits;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    options: DynamoRateBudgetOptions = {},
  ) {
    this.limits = slotLimitsOf(options);
  }

  async take(tokenId: string, user: string, now: number): Promise<RateSlot> {
    const keys = budgetBookKeys(tokenId);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const item = await this.call(
        () =>
          this.client.send(
            new GetItemCommand({
              TableName: this.tableName,
              Key: { PK: s(keys.PK), SK: s(keys.SK) },
              ConsistentRead: true,
            }),
          ),
        tokenId,
      );
      const stored: Item | undefined = item.Item;
      const version = stored === undefined ? undefined : readN(stored, "version");
      const book =
        stored === undefined ? [] : bookFromStored(readJson<StoredSlot[]>(stored, "slots"));
      const next = reserveSlot(book, user, now, this.limits);
      if (!next.changed) return next.slot;
      const written = await this.putBook(keys, bookToJson(next.book), version, next, now);
      if (written) return next.slot;
      // Lost a race: let the winners' writes land before reading again, a little longer (and
      // staggered by user) each time, so many takers do not keep colliding.
      await sleep(Math.min(MAX_PAUSE_MS, attempt * 5 + (hashOf(user) % 10)));
    }
    throw new StoreError(`rate budget of ${tokenId}: too many concurrent takes`, "conflict");
  }

  /** True when the book was written, false when another take wrote it first. */
  private async putBook(
    keys: { PK: string; SK: string },
    slots: string,
    version: number | undefined,
    next: ReturnType<typeof reserveSlot>,
    now: number,
  ): Promise<boolean> {
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            PK: s(keys.PK),
            SK: s(keys.SK),
            slots: s(slots),
            version: n((version ?? 0) + 1),
            [TTL_ATTRIBUTE]: bookExpiryOf(next.book, now),
          },
          ...(version === undefined
            ? { ConditionExpression: "attribute_not_exists(PK)" }
            : {
                ConditionExpression: "version = :version",
                ExpressionAttributeValues: { ":version": n(version) },
              }),
        }),
      );
      return true;
    } catch (error: unknown) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw dynamoFailed("rate budget", error);
    }
  }

  private async call<T>(fn: () => Promise<T>, tokenId: string): Promise<T> {
    try {
      return await fn();
    } catch (error: unknown) {
      throw dynamoFailed(`rate budget of ${tokenId}`, error);
    }
  }
}
