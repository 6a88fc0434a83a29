import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { LOCAL_CREDENTIALS } from "#devstack/dynamo";
import { LOCAL_REGION } from "#devstack/lambda-context";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { describeSealMigration, migrateSealsInTable } from "#lib/app/secrets/sealed-items-scan";
import type { Clock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";

/**
 * At start, on the state kept from earlier runs: secrets sealed before they were bound to their
 * owner are sealed again under it, and clear calendar addresses sealed (as `statuspilot
 * migrate-seals` does on AWS). Nothing to do on a fresh stack, and a second start writes nothing.
 */
export async function migrateLocalSeals(
  endpoint: string,
  tableName: string,
  tokenKey: string,
  options: { log: Log; clock: Clock },
): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    const report = await migrateSealsInTable({
      client,
      tableName,
      vault: new LocalTokenVault(tokenKey),
      clock: options.clock,
      log: options.log,
    });
    if (report.resealed + report.addressesSealed + report.refused.length + report.legacyLeft > 0) {
      options.log.info(`sealed secrets migrated: ${describeSealMigration(report)}`);
    }
  } finally {
    client.destroy();
  }
}
