import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  type PutItemCommandInput,
  QueryCommand,
} from "@aws-sdk/client-dynamodb";
import type { HomeRecord, NoticeStore, ProblemRecord, TeamBotRecord } from "#lib/core/notice-store";
import type { UserKey } from "#lib/core/types";
import { allPages, wrapStoreError } from "./dynamo-query";
import { type Item, n, userPk } from "./items/codec";
import { homeFromItem, homeKeys, homeToItem } from "./items/home";
import { PROBLEM_PREFIX, problemFromItem, problemKeys, problemToItem } from "./items/problem";
import { teamBotFromItem, teamBotKeys, teamBotToItem } from "./items/team-bot";

/**
 * What telling people keeps, in the table (lib/store/items/problem.ts, home.ts, team-bot.ts):
 * one Query lists a person's problems; a problem's record is created with attribute_not_exists
 * and claimed or settled only while its `openedAt` is the one read, so of two workers at once
 * exactly one sends its message.
 */
export class DynamoNoticeStore implements NoticeStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async problems(key: UserKey): Promise<ProblemRecord[]> {
    const items = await allPages(
      this.client,
      (start) =>
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: "#pk = :pk AND begins_with(#sk, :problem)",
          ExpressionAttributeNames: { "#pk": "PK", "#sk": "SK" },
          ExpressionAttributeValues: {
            ":pk": { S: userPk(key.team, key.user) },
            ":problem": { S: PROBLEM_PREFIX },
          },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
    );
    return items.map(problemFromItem);
  }

  async putProblem(record: ProblemRecord, expectedOpenedAt?: number): Promise<boolean> {
    // A new problem: no record yet. A claim or a settlement: nobody wrote it since it was read.
    const condition: Pick<
      PutItemCommandInput,
      "ConditionExpression" | "ExpressionAttributeNames" | "ExpressionAttributeValues"
    > =
      expectedOpenedAt === undefined
        ? {
            ConditionExpression: "attribute_not_exists(#pk)",
            ExpressionAttributeNames: { "#pk": "PK" },
          }
        : {
            ConditionExpression: "#openedAt = :expected",
            ExpressionAttributeNames: { "#openedAt": "openedAt" },
            ExpressionAttributeValues: { ":expected": n(expectedOpenedAt) },
          };
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: problemToItem(record),
          ...condition,
        }),
      );
      return true;
    } catch (error: unknown) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw wrapStoreError(error);
    }
  }

  async deleteProblem(key: UserKey, id: string): Promise<void> {
    await this.call(() =>
      this.client.send(
        new DeleteItemCommand({ TableName: this.tableName, Key: keyOf(problemKeys(key, id)) }),
      ),
    );
  }

  async home(key: UserKey): Promise<HomeRecord | undefined> {
    const item = await this.get(homeKeys(key));
    return item === undefined ? undefined : homeFromItem(item);
  }

  async putHome(record: HomeRecord): Promise<void> {
    await this.call(() =>
      this.client.send(new PutItemCommand({ TableName: this.tableName, Item: homeToItem(record) })),
    );
  }

  async teamBot(team: string): Promise<TeamBotRecord | undefined> {
    const item = await this.get(teamBotKeys(team));
    return item === undefined ? undefined : teamBotFromItem(item);
  }

  async putTeamBot(record: TeamBotRecord): Promise<void> {
    await this.call(() =>
      this.client.send(
        new PutItemCommand({ TableName: this.tableName, Item: teamBotToItem(record) }),
      ),
    );
  }

  private async get(keys: { PK: string; SK: string }): Promise<Item | undefined> {
    const out = await this.call(() =>
      this.client.send(
        new GetItemCommand({ TableName: this.tableName, Key: keyOf(keys), ConsistentRead: true }),
      ),
    );
    return out.Item;
  }

  private async call<T>(send: () => Promise<T>): Promise<T> {
    try {
      return await send();
    } catch (error: unknown) {
      throw wrapStoreError(error);
    }
  }
}

const keyOf = (keys: { PK: string; SK: string }) => ({ PK: { S: keys.PK }, SK: { S: keys.SK } });
