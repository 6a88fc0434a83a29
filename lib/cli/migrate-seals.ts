import { parseArgs } from "node:util";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { KMSClient } from "@aws-sdk/client-kms";
import { systemClock } from "#lib/app/compose/system-clock";
import { KmsTokenVault } from "#lib/app/secrets/kms-vault";
import type { SealReadingVault } from "#lib/app/secrets/legacy-seals";
import { describeSealMigration, migrateSealsInTable } from "#lib/app/secrets/sealed-items-scan";
import type { Clock } from "#lib/core/clock";
import { silentLog } from "#lib/core/ports";
import { CLI_SPECS, cliUsage } from "./command-specs";
import type { CliIo } from "./io";

const EXIT_USAGE = 64;
/** Some old-format values or clear addresses are still stored: run again. */
const EXIT_LEGACY_LEFT = 1;
const EXIT_FAILED = 70;
const USAGE = cliUsage("migrate-seals");

/** What the command builds its clients from: AWS by default, injected in tests. */
export interface MigrateSealsDeps {
  dynamo(region: string | undefined, endpoint: string | undefined): DynamoDBClient;
  vault(region: string | undefined, keyId: string): SealReadingVault;
  clock: Clock;
}

const awsDeps: MigrateSealsDeps = {
  dynamo: (region, endpoint) =>
    new DynamoDBClient({
      ...(region !== undefined ? { region } : {}),
      ...(endpoint !== undefined ? { endpoint } : {}),
    }),
  // Without --region, each SDK client finds it itself (AWS_REGION, the profile).
  vault: (region, keyId) =>
    new KmsTokenVault(new KMSClient(region !== undefined ? { region } : {}), keyId),
  clock: systemClock,
};

/**
 * `statuspilot migrate-seals`: after deploying the version that binds secrets to their owner,
 * seals every secret sealed before under its owner, and every calendar address still in clear
 * (infra/DEPLOY.md, "Upgrading sealed values"). With the operator's credentials: a Scan of the
 * table, versioned writes, KMS Decrypt under both contexts and Encrypt under the owners'.
 * Exits 0 once no old-format value is left.
 */
export function run(args: string[], io: CliIo): Promise<number> {
  return runWith(args, io, awsDeps);
}

export async function runWith(args: string[], io: CliIo, deps: MigrateSealsDeps): Promise<number> {
  let values: {
    stage?: string;
    region?: string;
    table?: string;
    "key-id"?: string;
    endpoint?: string;
    "dry-run"?: boolean;
  };
  try {
    ({ values } = parseArgs({
      args,
      options: CLI_SPECS["migrate-seals"].options,
      strict: true,
    }));
  } catch (error: unknown) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return EXIT_USAGE;
  }
  const stage = values.stage;
  if (stage === undefined || !/^[A-Za-z0-9-]+$/.test(stage)) {
    io.err(USAGE);
    return EXIT_USAGE;
  }
  // The names serverless.yml gives the stage's table and key.
  const tableName = values.table ?? `statuspilot-${stage}`;
  const keyId = values["key-id"] ?? `alias/statuspilot-${stage}-tokens`;
  const dryRun = values["dry-run"] === true;
  const client = deps.dynamo(values.region, values.endpoint);
  try {
    const report = await migrateSealsInTable({
      client,
      tableName,
      vault: deps.vault(values.region, keyId),
      clock: deps.clock,
      log: silentLog,
      dryRun,
    });
    io.out(`${dryRun ? "dry run: " : ""}${describeSealMigration(report)}`);
    for (const refused of report.refused) {
      io.out(`  ${refused.item} ${refused.field}: opens for its owner in no format, left as it is`);
    }
    return report.legacyLeft === 0 ? 0 : EXIT_LEGACY_LEFT;
  } catch (error: unknown) {
    io.err(`migrate-seals failed: ${error instanceof Error ? error.message : String(error)}`);
    return EXIT_FAILED;
  } finally {
    client.destroy();
  }
}
