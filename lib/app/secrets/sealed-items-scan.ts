import { type DynamoDBClient, ScanCommand } from "@aws-sdk/client-dynamodb";
import type { Clock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import { DynamoStore } from "#lib/store/dynamo-store";
import { channelKeys } from "#lib/store/items/channel";
import { type Item, readS } from "#lib/store/items/codec";
import { userKeys } from "#lib/store/items/user";
import type { SealReadingVault } from "./legacy-seals";
import { migrateSeals, type SealedRecordKeys, type SealMigrationReport } from "./seal-migration";

const PROFILE_SK = userKeys({ team: "", user: "" }).SK;
const CHANNEL_SK = channelKeys("").SK;

/**
 * Every user profile and push channel of the table, by key only: one paginated, consistent
 * Scan (the migration is a one-shot job; nothing else reads the whole table so).
 */
export class DynamoSealedRecordKeys implements SealedRecordKeys {
  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
  ) {}

  async list(): Promise<{ users: UserKey[]; channels: string[] }> {
    const users: UserKey[] = [];
    const channels: string[] = [];
    let start: Item | undefined;
    do {
      const out = await this.client.send(
        new ScanCommand({
          TableName: this.tableName,
          FilterExpression: "#sk = :profile OR #sk = :channel",
          ProjectionExpression: "#sk, #team, #user, #channelId",
          ExpressionAttributeNames: {
            "#sk": "SK",
            "#team": "team",
            "#user": "user",
            "#channelId": "channelId",
          },
          ExpressionAttributeValues: {
            ":profile": { S: PROFILE_SK },
            ":channel": { S: CHANNEL_SK },
          },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of out.Items ?? []) {
        if (readS(item, "SK") === PROFILE_SK) {
          users.push({ team: readS(item, "team"), user: readS(item, "user") });
        } else {
          channels.push(readS(item, "channelId"));
        }
      }
      start = out.LastEvaluatedKey;
    } while (start);
    return { users, channels };
  }
}

/** The migration over one DynamoDB table (AWS, or the local stack's dynalite). */
export function migrateSealsInTable(options: {
  client: DynamoDBClient;
  tableName: string;
  vault: SealReadingVault;
  clock: Clock;
  log: Log;
  dryRun?: boolean;
}): Promise<SealMigrationReport> {
  return migrateSeals({
    store: new DynamoStore(options.client, options.tableName),
    keys: new DynamoSealedRecordKeys(options.client, options.tableName),
    vault: options.vault,
    clock: options.clock,
    log: options.log,
    ...(options.dryRun !== undefined ? { dryRun: options.dryRun } : {}),
  });
}

/** One line of the report, as the CLI and the local stack print it. */
export function describeSealMigration(report: SealMigrationReport): string {
  return [
    `${report.users} users, ${report.channels} channels`,
    `${report.resealed} sealed again under their owner`,
    `${report.addressesSealed} calendar addresses sealed`,
    `${report.alreadyBound} already sealed to their owner`,
    `${report.refused.length} that open for their owner in no format`,
    `${report.conflicts} conflicts retried`,
    `${report.legacyLeft} legacy values left`,
  ].join(", ");
}
