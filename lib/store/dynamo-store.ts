import {
  ConditionalCheckFailedException,
  DeleteItemCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  type ScanCommand,
} from "@aws-sdk/client-dynamodb";
import type { SnoozeRecord } from "#lib/core/dnd";
import type { DueTransition, PolledUser, StatusStore } from "#lib/core/ports";
import type {
  ChannelRecord,
  OutOfOfficeRecord,
  StatusRecord,
  TimelineRecord,
  UserRecord,
  UserSnapshot,
} from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { getItemsOf } from "./dynamo-batch-get";
import {
  allPages,
  type IndexRange,
  queryIndex,
  scanProfiles,
  wrapStoreError as wrap,
} from "./dynamo-query";
import { ConflictError } from "./errors";
import { agendaPk } from "./items/agenda";
import { budgetUsersKeys } from "./items/budget";
import {
  CHANNEL_POINTER_PREFIX,
  channelFromItem,
  channelKeys,
  channelPointerItem,
  channelToItem,
} from "./items/channel";
import { type Item, n, readS, userPk } from "./items/codec";
import { OOO_PREFIX, oooFromItem, oooKeys, oooToItem } from "./items/ooo";
import { SNOOZE_SK, snoozeFromItem, snoozeToItem } from "./items/snooze";
import { dueFromEntry, statusFromItem, statusKeys, statusToItem } from "./items/status";
import { SYNC_GATE_PREFIX } from "./items/sync-gate";
import { TIMELINE_PREFIX, timelineFromItem, timelineKeys, timelineToItem } from "./items/timeline";
import { polledFromItem, userFromItem, userKeys, userToItem } from "./items/user";
import { DUE_INDEX, INDEX_SHARDS, POLL_INDEX } from "./table";

/**
 * The single-table DynamoDB adapter. Every write is one conditional single-item write:
 * creates require the item to be absent, updates require the version read before.
 */
export class DynamoStore implements StatusStore {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async loadUser(key: UserKey): Promise<UserSnapshot> {
    const snapshot: UserSnapshot = { timelines: [], ooo: [] };
    let start: Item | undefined;
    do {
      const out = await this.call(() =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            KeyConditionExpression: "#pk = :pk",
            ExpressionAttributeNames: { "#pk": "PK" },
            ExpressionAttributeValues: { ":pk": { S: userPk(key.team, key.user) } },
            ConsistentRead: true,
            ...(start ? { ExclusiveStartKey: start } : {}),
          }),
        ),
      );
      for (const item of out.Items ?? []) {
        const sk = readS(item, "SK");
        if (sk === "PROFILE") snapshot.user = userFromItem(item);
        else if (sk === "STATUS") snapshot.status = statusFromItem(item);
        else if (sk.startsWith(TIMELINE_PREFIX)) snapshot.timelines.push(timelineFromItem(item));
        else if (sk.startsWith(OOO_PREFIX)) snapshot.ooo.push(oooFromItem(item));
        else if (sk === SNOOZE_SK) snapshot.snooze = snoozeFromItem(item);
      }
      start = out.LastEvaluatedKey;
    } while (start);
    return snapshot;
  }

  async getUserAndStatus(key: UserKey): Promise<Pick<UserSnapshot, "user" | "status">> {
    // PROFILE and STATUS sort next to each other in the user's partition, with nothing between
    // them (CHANNEL# and OOO# sort before, TIMELINE# after): one query reads the two alone, one
    // read unit while they hold under 4 KB together, however many calendars the user has.
    const found: Pick<UserSnapshot, "user" | "status"> = {};
    const items = await this.allPages(
      (start) =>
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: "#pk = :pk AND #sk BETWEEN :profile AND :status",
          ExpressionAttributeNames: { "#pk": "PK", "#sk": "SK" },
          ExpressionAttributeValues: {
            ":pk": { S: userPk(key.team, key.user) },
            ":profile": { S: userKeys(key).SK },
            ":status": { S: statusKeys(key).SK },
          },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
    );
    for (const item of items) {
      const sk = readS(item, "SK");
      if (sk === userKeys(key).SK) found.user = userFromItem(item);
      else if (sk === statusKeys(key).SK) found.status = statusFromItem(item);
    }
    return found;
  }

  async getUser(key: UserKey): Promise<UserRecord | undefined> {
    const item = await this.get(userKeys(key));
    return item ? userFromItem(item) : undefined;
  }

  async putUser(user: UserRecord, expectedVersion: number | undefined): Promise<UserRecord> {
    return this.putNextVersion(user, expectedVersion, userToItem);
  }

  async getStatus(key: UserKey): Promise<StatusRecord | undefined> {
    const item = await this.get(statusKeys(key));
    return item ? statusFromItem(item) : undefined;
  }

  async putStatus(
    status: StatusRecord,
    expectedVersion: number | undefined,
  ): Promise<StatusRecord> {
    return this.putNextVersion(status, expectedVersion, statusToItem);
  }

  async putSnooze(snooze: SnoozeRecord, expected: number | undefined): Promise<SnoozeRecord> {
    return this.putNextVersion(snooze, expected, snoozeToItem);
  }

  async putTimeline(
    timeline: TimelineRecord,
    expectedVersion: number | undefined,
  ): Promise<TimelineRecord> {
    return this.putNextVersion(timeline, expectedVersion, timelineToItem);
  }

  async deleteTimeline(key: UserKey, sourceId: string): Promise<void> {
    const keys = timelineKeys(key, sourceId);
    await this.call(() =>
      this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { PK: { S: keys.PK }, SK: { S: keys.SK } },
        }),
      ),
    );
  }

  async createOutOfOffice(entry: OutOfOfficeRecord): Promise<void> {
    await this.putVersioned(oooToItem(entry), undefined);
  }

  async deleteOutOfOffice(key: UserKey, id: string): Promise<OutOfOfficeRecord | undefined> {
    const keys = oooKeys(key, id);
    try {
      const out = await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { PK: { S: keys.PK }, SK: { S: keys.SK } },
          ConditionExpression: "attribute_exists(#pk)",
          ExpressionAttributeNames: { "#pk": "PK" },
          ReturnValues: "ALL_OLD",
        }),
      );
      return out.Attributes ? oooFromItem(out.Attributes) : undefined;
    } catch (error: unknown) {
      if (error instanceof ConditionalCheckFailedException) return undefined;
      throw wrap(error);
    }
  }

  async putChannel(
    channel: ChannelRecord,
    expectedVersion: number | undefined,
  ): Promise<ChannelRecord> {
    const saved = await this.putNextVersion(channel, expectedVersion, channelToItem);
    // A pointer in the user's partition, so deleting the user finds their channels.
    await this.call(() =>
      this.client.send(
        new PutItemCommand({ TableName: this.tableName, Item: channelPointerItem(channel) }),
      ),
    );
    return saved;
  }

  async getChannel(channelId: string): Promise<ChannelRecord | undefined> {
    const item = await this.get(channelKeys(channelId));
    return item ? channelFromItem(item) : undefined;
  }

  async channelsOf(key: UserKey): Promise<ChannelRecord[]> {
    const pk = userPk(key.team, key.user);
    const bound: ChannelRecord[] = [];
    for (const pointer of await this.queryPartition(pk, CHANNEL_POINTER_PREFIX)) {
      const id = readS(pointer, "SK").slice(CHANNEL_POINTER_PREFIX.length);
      const channel = await this.getChannel(id);
      if (channel?.key.team === key.team && channel.key.user === key.user) bound.push(channel);
    }
    return bound;
  }

  /**
   * Queries each partition that holds only this user's items (the profile partition, the sync
   * gates of their sources, their own token's budget counters, their calendars' agendas) and
   * deletes every item, then the channels the profile partition points to, each only while it
   * is still bound to this user.
   */
  async deleteUserData(key: UserKey): Promise<number> {
    const pk = userPk(key.team, key.user);
    const partitions = [
      pk,
      `${SYNC_GATE_PREFIX}${key.team}#${key.user}`,
      // The token id lib/app/status/profile-calls.ts charges a user's own token to: `<team>#<owner>`.
      budgetUsersKeys(`${key.team}#${key.user}`, 0).PK,
      agendaPk(key),
    ];
    let deleted = 0;
    for (const partition of partitions) {
      for (const item of await this.queryPartition(partition)) {
        const sk = readS(item, "SK");
        if (partition === pk && sk.startsWith(CHANNEL_POINTER_PREFIX)) {
          deleted += await this.deleteChannelOf(key, sk.slice(CHANNEL_POINTER_PREFIX.length));
        }
        await this.deleteKey(partition, sk);
        deleted += 1;
      }
    }
    return deleted;
  }

  /** Deletes a channel if it is still bound to `key` (1), or leaves it (0). */
  private async deleteChannelOf(key: UserKey, channelId: string): Promise<number> {
    const keys = channelKeys(channelId);
    try {
      await this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { PK: { S: keys.PK }, SK: { S: keys.SK } },
          ConditionExpression: "#team = :team AND #user = :user",
          ExpressionAttributeNames: { "#team": "team", "#user": "user" },
          ExpressionAttributeValues: { ":team": { S: key.team }, ":user": { S: key.user } },
        }),
      );
      return 1;
    } catch (error: unknown) {
      if (error instanceof ConditionalCheckFailedException) return 0;
      throw wrap(error);
    }
  }

  private async deleteKey(pk: string, sk: string): Promise<void> {
    await this.call(() =>
      this.client.send(
        new DeleteItemCommand({ TableName: this.tableName, Key: { PK: { S: pk }, SK: { S: sk } } }),
      ),
    );
  }

  /** Every item's keys in the partition, or only those whose sort key starts with `skPrefix`. */
  private queryPartition(pk: string, skPrefix?: string): Promise<Item[]> {
    const bySk: Item = skPrefix === undefined ? {} : { ":sk": { S: skPrefix } };
    return this.allPages(
      (start) =>
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: `#pk = :pk${skPrefix === undefined ? "" : " AND begins_with(#sk, :sk)"}`,
          ExpressionAttributeNames: { "#pk": "PK", "#sk": "SK" },
          ExpressionAttributeValues: { ":pk": { S: pk }, ...bySk },
          ProjectionExpression: "#pk, #sk",
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
    );
  }

  private allPages(page: (start: Item | undefined) => QueryCommand | ScanCommand) {
    return allPages(this.client, page);
  }

  async dueBetween(from: number, to: number): Promise<DueTransition[]> {
    // DynamoDB refuses BETWEEN a AND b with b < a: an empty window holds nothing.
    if (to <= from) return [];
    const shards = await Promise.all(
      Array.from({ length: INDEX_SHARDS }, (_, shard) =>
        this.queryIndex(DUE_INDEX, `DUE#${shard}`, { low: from, high: to - 1 }),
      ),
    );
    // The index holds all the tick needs, so no item is read. Eventually consistent: an entry
    // may lag its item by the index's propagation (well under a second against a minute's tick),
    // and the worst it does is enqueue a transition twice or one that moved; the reconcile of
    // either is idempotent, as it already is for a writer and a tick racing each other.
    return shards.flat().map(dueFromEntry);
  }

  async usersToPoll(phaseFrom: number, phaseTo: number): Promise<PolledUser[]> {
    if (phaseTo <= phaseFrom) return [];
    const shards = await Promise.all(
      Array.from({ length: INDEX_SHARDS }, (_, shard) =>
        this.queryIndex(POLL_INDEX, `POLL#${shard}`, { low: phaseFrom, high: phaseTo - 1 }),
      ),
    );
    const polled: PolledUser[] = [];
    const written: Item[] = [];
    for (const entry of shards.flat()) {
      const user = polledFromItem(entry);
      if (user) polled.push(user);
      else written.push(entry);
    }
    // A profile written before sources had their own attribute: read whole.
    for (const item of await this.getMany(written)) {
      const user = userFromItem(item);
      polled.push({ key: user.key, sources: user.sources });
    }
    return polled;
  }

  private getMany(entries: Item[]): Promise<Item[]> {
    return getItemsOf(this.client, this.tableName, entries);
  }

  async usersOfTeam(team: string): Promise<UserRecord[]> {
    return (await scanProfiles(this.client, this.tableName, "team", team)).map(userFromItem);
  }

  async usersWithId(user: string): Promise<UserRecord[]> {
    return (await scanProfiles(this.client, this.tableName, "user", user)).map(userFromItem);
  }

  private queryIndex(index: string, hash: string, range: IndexRange): Promise<Item[]> {
    return queryIndex(this.client, this.tableName, index, hash, range);
  }

  private async get(keys: { PK: string; SK: string }): Promise<Item | undefined> {
    const out = await this.call(() =>
      this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: { PK: { S: keys.PK }, SK: { S: keys.SK } },
          ConsistentRead: true,
        }),
      ),
    );
    return out.Item;
  }

  /** Writes `record` as the version after `expectedVersion` (1 when creating) and returns it. */
  private async putNextVersion<T extends { version: number }>(
    record: T,
    expectedVersion: number | undefined,
    toItem: (record: T) => Item,
  ): Promise<T> {
    const next = { ...record, version: (expectedVersion ?? 0) + 1 };
    await this.putVersioned(toItem(next), expectedVersion);
    return next;
  }

  /** Puts `item`; `expectedVersion` undefined means "must not exist yet". */
  private async putVersioned(item: Item, expectedVersion: number | undefined): Promise<void> {
    const creating = expectedVersion === undefined;
    try {
      await this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: item,
          ConditionExpression: creating ? "attribute_not_exists(#pk)" : "#version = :expected",
          ExpressionAttributeNames: creating ? { "#pk": "PK" } : { "#version": "version" },
          ...(creating ? {} : { ExpressionAttributeValues: { ":expected": n(expectedVersion) } }),
          // The conflict then carries the item that won.
          ReturnValuesOnConditionCheckFailure: "ALL_OLD",
        }),
      );
    } catch (error: unknown) {
      if (error instanceof ConditionalCheckFailedException) {
        throw new ConflictError(readS(item, "PK"), readS(item, "SK"), expectedVersion, {
          cause: error,
          ...(error.Item !== undefined ? { existing: error.Item } : {}),
        });
      }
      throw wrap(error);
    }
  }

  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error: unknown) {
      throw wrap(error);
    }
  }
}
