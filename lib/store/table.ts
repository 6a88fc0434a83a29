import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";

/**
 * The one definition of the table. The local stack creates it with `createTableInput`, and
 * serverless.yml carries `cloudFormationTableResource`'s output; a test proves they agree.
 */

export const DUE_INDEX = "due";
export const POLL_INDEX = "poll";
/**
 * The attributes each index carries besides the keys. The due index: the user and what the tick
 * sorts, filters and enqueues by, so the tick reads nothing but the index. The poll index: the
 * user and their sources, which the poll sends with each check.
 */
export const DUE_PROJECTION = ["team", "user", "nextIsOoo", "enqueuedFor"] as const;
export const POLL_PROJECTION = ["team", "user", "sources"] as const;
/** Epoch seconds; TTL deletes in AWS only, so reads also ignore expired items. */
export const TTL_ATTRIBUTE = "expiresAt";
/**
 * Shards of the due and poll indexes, so no single partition is hot. Each tick queries every
 * due shard (8 reads a minute: 11.5 reads a user-day at 1,000 users, 1.2 at 10,000), so fewer
 * shards would read less, but the count is set by the writes: at a 09:00 herd of 10,000 users
 * each status is written about twice within seconds, each write moving its due entry (a delete
 * and a put), some 40,000 index writes. One index partition key takes about 1,000 writes a
 * second, and a throttled index throttles the table's writes; over 8 shards that is about 1,250
 * a second each for the herd's 4 seconds, already at the limit. Nor can a smaller set of shards
 * serve only the tick's near-term window: an entry's shard is fixed by its key, not by when it
 * is due, and moving entries between shard sets as they near would be another index write each.
 */
export const INDEX_SHARDS = 8;

export const tableDefinition: CreateTableCommandInput & { TableName: string } = {
  TableName: "statuspilot",
  AttributeDefinitions: [
    { AttributeName: "PK", AttributeType: "S" },
    { AttributeName: "SK", AttributeType: "S" },
    { AttributeName: "GSI1PK", AttributeType: "S" },
    { AttributeName: "GSI1SK", AttributeType: "N" },
    { AttributeName: "GSI2PK", AttributeType: "S" },
    { AttributeName: "GSI2SK", AttributeType: "N" },
  ],
  KeySchema: [
    { AttributeName: "PK", KeyType: "HASH" },
    { AttributeName: "SK", KeyType: "RANGE" },
  ],
  GlobalSecondaryIndexes: [
    {
      IndexName: DUE_INDEX,
      KeySchema: [
        { AttributeName: "GSI1PK", KeyType: "HASH" },
        { AttributeName: "GSI1SK", KeyType: "RANGE" },
      ],
      // What the tick filters on: a status write that keeps these writes nothing to the index.
      Projection: { ProjectionType: "INCLUDE", NonKeyAttributes: [...DUE_PROJECTION] },
    },
    {
      IndexName: POLL_INDEX,
      KeySchema: [
        { AttributeName: "GSI2PK", KeyType: "HASH" },
        { AttributeName: "GSI2SK", KeyType: "RANGE" },
      ],
      // What the poll sends: the sources and whose they are, never the profile's tokens.
      Projection: { ProjectionType: "INCLUDE", NonKeyAttributes: [...POLL_PROJECTION] },
    },
  ],
  BillingMode: "PAY_PER_REQUEST",
};

/** The CreateTable request for a table of this definition under `tableName`. */
export function createTableInput(tableName: string): CreateTableCommandInput {
  return { ...structuredClone(tableDefinition), TableName: tableName };
}

/** The CloudFormation resource for the table; `tableName` may be an intrinsic (e.g. a `Ref`). */
export function cloudFormationTableResource(tableName: unknown): {
  Type: "AWS::DynamoDB::Table";
  Properties: Record<string, unknown>;
} {
  const { TableName: _placeholder, ...definition } = tableDefinition;
  return {
    Type: "AWS::DynamoDB::Table",
    Properties: {
      TableName: tableName,
      ...structuredClone(definition),
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    },
  };
}

/** A stable shard for a user, so each user's index entry always lands in the same partition. */
export function shardOf(id: string): number {
  let hash = 0;
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) >>> 0;
  return hash % INDEX_SHARDS;
}
