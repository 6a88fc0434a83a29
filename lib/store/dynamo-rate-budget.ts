import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { RateBudget, RateSlot } from "../core/ports";
import { conditionalUpdate, type UpdateParts } from "./conditional-update";
import { budgetCallsKeys, budgetUsersKeys, expiryOf, WINDOW_MS, windowOf } from "./items/budget";
import { n, s } from "./items/codec";
import { TTL_ATTRIBUTE } from "./table";

export interface DynamoRateBudgetOptions {
  /** Calls per fixed minute for one (token, user). Half of spec 8.1's 10 per rolling minute. */
  perUserPerWindow?: number;
  /** Distinct users per fixed minute for one token. Half of spec 8.1's 30 per rolling minute. */
  usersPerWindow?: number;
}

/**
 * The spec 8.1 budget in DynamoDB, shared by every worker. Counters live in fixed minutes;
 * any rolling minute overlaps at most two of them, so half the limit per fixed minute keeps
 * every rolling minute within it. Each take is a conditional update, so concurrent workers
 * can never overspend: a user joins a minute's set only while the set has room, and counts a
 * call only while the count is under the limit.
 */
export class DynamoRateBudget implements RateBudget {
  private readonly perUser: number;
  private readonly users: number;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    options: DynamoRateBudgetOptions = {},
  ) {
    this.perUser = options.perUserPerWindow ?? 5;
    this.users = options.usersPerWindow ?? 15;
  }

  async take(tokenId: string, user: string, now: number): Promise<RateSlot> {
    const window = windowOf(now);
    const refused: RateSlot = { ok: false, retryAt: (window + 1) * WINDOW_MS };
    // A user already in this minute's set keeps its place; a new one needs room in the set.
    const userJoins = await this.conditionalUpdate(budgetUsersKeys(tokenId, window), {
      UpdateExpression: "ADD #users :user SET #ttl = :ttl",
      ConditionExpression: [
        "attribute_not_exists(#users)",
        "contains(#users, :userName)",
        "size(#users) < :maxUsers",
      ].join(" OR "),
      ExpressionAttributeNames: { "#users": "users", "#ttl": TTL_ATTRIBUTE },
      ExpressionAttributeValues: {
        ":user": { SS: [user] },
        ":userName": s(user),
        ":maxUsers": n(this.users),
        ":ttl": expiryOf(window),
      },
    });
    if (!userJoins) return refused;
    // The user's own calls in this minute, under their limit.
    const callCounts = await this.conditionalUpdate(budgetCallsKeys(tokenId, window, user), {
      UpdateExpression: "ADD #calls :one SET #ttl = :ttl",
      ConditionExpression: "attribute_not_exists(#calls) OR #calls < :maxCalls",
      ExpressionAttributeNames: { "#calls": "calls", "#ttl": TTL_ATTRIBUTE },
      ExpressionAttributeValues: {
        ":one": n(1),
        ":maxCalls": n(this.perUser),
        ":ttl": expiryOf(window),
      },
    });
    return callCounts ? { ok: true } : refused;
  }

  /** True when the update was applied, false when its condition refused it. */
  private conditionalUpdate(keys: { PK: string; SK: string }, update: UpdateParts) {
    return conditionalUpdate(this.client, this.tableName, keys, update);
  }
}
