import {
  DeleteItemCommand,
  type DynamoDBClient,
  PutItemCommand,
  QueryCommand,
} from "@aws-sdk/client-dynamodb";
import type { AgendaRecord, AgendaStore } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import { allPages, wrapStoreError } from "./dynamo-query";
import { agendaFromItem, agendaKeys, agendaPk, agendaToItem } from "./items/agenda";

/**
 * The agendas in DynamoDB: one item per calendar, each put whole by the sync that read it (the
 * sync gate runs one sync of a calendar at a time, so a plain put is last-writer-wins in order).
 */
export class DynamoAgendaStore implements AgendaStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async put(record: AgendaRecord): Promise<void> {
    await this.call(() =>
      this.client.send(
        new PutItemCommand({ TableName: this.tableName, Item: agendaToItem(record) }),
      ),
    );
  }

  async ofUser(key: UserKey): Promise<AgendaRecord[]> {
    const items = await allPages(
      this.client,
      (start) =>
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: "#pk = :pk",
          ExpressionAttributeNames: { "#pk": "PK" },
          ExpressionAttributeValues: { ":pk": { S: agendaPk(key) } },
          // The page right after a calendar was added shows what its first read stored.
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
    );
    return items.map(agendaFromItem);
  }

  async delete(key: UserKey, sourceId: string): Promise<void> {
    const keys = agendaKeys(key, sourceId);
    await this.call(() =>
      this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { PK: { S: keys.PK }, SK: { S: keys.SK } },
        }),
      ),
    );
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error: unknown) {
      throw wrapStoreError(error);
    }
  }
}
