import type { CreateTableCommandInput } from "@aws-sdk/client-dynamodb";

/**
 * The one definition of the table. The local stack creates it with `createTableInput`, and
 * serverless.yml carries `cloudFormationTableResource`'s output; a test proves they agree.
 */

export const DUE_INDEX = "due";
export const POLL_INDEX = "poll";
/** Epoch seconds; TTL deletes in AWS only, so reads also ignore expired items. */
export const TTL_ATTRIBUTE = "expiresAt";
/** Shards of the due and poll indexes, so no single partition is hot. */
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
      Projection: { ProjectionType: "ALL" },
    },
    {
      IndexName: POLL_INDEX,
      KeySchema: [
        { AttributeName: "GSI2PK", KeyType: "HASH" },
        { AttributeName: "GSI2SK", KeyType: "RANGE" },
      ],
      Projection: { ProjectionType: "ALL" },
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
