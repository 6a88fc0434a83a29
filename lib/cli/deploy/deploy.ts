import { DescribeTypeCommand } from "@aws-sdk/client-cloudformation";
import { type CREDENTIAL_ENV, type Credentials, ensureApp, fromEnvironment } from "./app-setup";
import { type AwsClients, awsErrorName } from "./aws";
import { DeployError, fromAws } from "./errors";
import {
  indexStep,
  MIGRATIONS,
  type Migration,
  recordedMigrations,
  recordOf,
  unknownMigrations,
} from "./migrations";
import {
  checkRegion,
  checkStage,
  type ParameterKey,
  STACK_RESOURCE_TYPES,
  type StageNames,
  stageNames,
} from "./names";
import { newWebKey, type ParameterStates, readParameters, writeParameter } from "./parameters";
import { deployedManifest, readManifest, sameManifest } from "./service-app";
import { checkStackSettled, describeStack, describeTable } from "./stack-state";
import type { DeployDeps, Deployed, DeployOptions } from "./types";

const ROTATABLE: Record<string, ParameterKey> = {
  "web-key": "webKey",
  "signing-secret": "signingSecret",
  "oauth-client-secret": "oauthClientSecret",
  "oauth-client-id": "oauthClientId",
  "service-base-url": "serviceBaseUrl",
};

/** The checks that need no call: stage, region, --rotate names, --domain with its certificate. */
export function checkOptions(options: DeployOptions): StageNames {
  const names = stageNames(checkStage(options.stage), checkRegion(options.region));
  for (const name of options.rotate) {
    if (!(name in ROTATABLE)) {
      throw new DeployError(
        "bad_input",
        `--rotate ${name}: no such parameter`,
        `name one of ${Object.keys(ROTATABLE).join(", ")}`,
      );
    }
  }
  if ((options.domain === undefined) !== (options.certificateArn === undefined)) {
    throw new DeployError(
      "bad_input",
      "--domain and --certificate-arn go together",
      "pass both (an ACM certificate for the domain, in the stage's region), or neither",
    );
  }
  if (options.serviceUrl !== undefined && !/^https?:\/\/\S+$/.test(options.serviceUrl)) {
    throw new DeployError(
      "bad_input",
      `--service-url must be the service's web API base URL, got "${options.serviceUrl}"`,
      "pass e.g. --service-url https://svc.example/api",
    );
  }
  return names;
}

/** `statuspilot deploy`: from an AWS account and a token to an install link. */
export async function deploy(options: DeployOptions, deps: DeployDeps): Promise<Deployed> {
  const names = checkOptions(options);
  const { aws, io } = deps;
  const say = (line: string) => io.out(line);

  say(`[1/7] Reading stage ${names.stage} in ${names.region}`);
  const stack = await describeStack(aws.cloudformation, names);
  checkStackSettled(stack, names);
  const recorded = recordedMigrations(stack?.outputs);
  const unknown = unknownMigrations(recorded);
  if (unknown.length > 0 && !options.allowDowngrade) {
    throw new DeployError(
      "downgrade",
      `stage ${names.stage} was upgraded by a newer release (${unknown.join(", ")}), which this one cannot read back`,
      "deploy that release or a newer one (roll forward); --allow-downgrade deploys this one anyway",
    );
  }
  if (!stack) await checkRegionServices(aws, names);
  let params = await readParameters(aws.ssm, names);
  const manifest = await readManifest(options.manifestFile);
  const serviceUrl = options.serviceUrl ?? params.serviceBaseUrl?.value;
  if (serviceUrl === undefined) {
    throw new DeployError(
      "bad_input",
      "the service's web API base URL is not known for this stage yet",
      "pass --service-url (e.g. https://svc.example/api) on the first deploy",
    );
  }
  const service = deps.service(serviceUrl);

  say("[2/7] The app at the service");
  const appId = await ensureApp(options, deps, names, params, service, manifest);

  say("[3/7] The stage's parameters");
  params = await ensureParameters(options, deps, names, params, serviceUrl);

  const domain = options.domain ?? stack?.outputs.Domain;
  const certificateArn = options.certificateArn ?? stack?.outputs.DomainCertificateArn;
  const sealsPending = stack !== undefined && !recorded.includes("owner-bound-seals");
  const applied = (include: (m: Migration) => boolean) =>
    recordOf([...recorded.filter((m) => unknown.includes(m)), ...MIGRATIONS.filter(include)]);
  const oslsParams = (extra: Record<string, string>) => ({
    clientSecretVersion: String(params.oauthClientSecret?.version ?? 1),
    ...(domain ? { domain, domainCertificateArn: certificateArn ?? "" } : {}),
    legacySealedValues: sealsPending ? "true" : "false",
    migrations: applied((m) => m !== "owner-bound-seals" || !sealsPending),
    indexUpgrade: "none",
    ...extra,
  });
  const runOsls = async (what: string, extra: Record<string, string> = {}) => {
    say(`  osls deploy (${what})`);
    try {
      await deps.osls.run(
        "deploy",
        { stage: names.stage, region: names.region, params: oslsParams(extra) },
        (line) => say(`    ${line}`),
      );
    } catch (error: unknown) {
      if (error instanceof DeployError) throw error;
      const detail = error instanceof Error ? error.message : String(error);
      throw new DeployError(
        "osls",
        `osls deploy failed: ${detail}`,
        "fix what it names and run the same command again: it resumes where it stopped",
        { cause: error },
      );
    }
  };

  say("[4/7] Upgrades this release needs");
  if (stack !== undefined && !recorded.includes("index-projections")) {
    await upgradeIndexes(deps, names, (step) =>
      runOsls(`index upgrade: ${step}`, {
        indexUpgrade: step,
        // Recorded only once the table is today's: a stopped upgrade resumes from the table.
        migrations: applied(
          (m) => m !== "index-projections" && (m !== "owner-bound-seals" || !sealsPending),
        ),
      }),
    );
  }

  say("[5/7] Deploying the stack");
  await runOsls(stack ? "update" : "create");
  if (sealsPending) {
    say("  sealing every secret again under its owner (owner-bound-seals)");
    const report = await deps.migrateSeals(names).catch((error: unknown) => {
      throw fromAws(error, "sealing the stage's secrets again under their owners", names.region);
    });
    say(`  ${report.summary}`);
    if (report.legacyLeft > 0) {
      throw new DeployError(
        "migration",
        `the seal migration left ${report.legacyLeft} values in the old format (writes that kept losing races)`,
        "run the same deploy again: it resumes with the migration",
      );
    }
    await runOsls("closing the old-format window", {
      legacySealedValues: "false",
      migrations: applied(() => true),
    });
  }
  const deployed = await describeStack(aws.cloudformation, names);
  const publicUrl = deployed?.outputs.PublicBaseUrl;
  if (!publicUrl) {
    throw new DeployError(
      "stack_failed",
      `the stack ${names.stack} has no PublicBaseUrl output after the deploy`,
      "check the stack's events in the CloudFormation console, then run the same command again",
    );
  }

  say("[6/7] Pointing the app at the deployment");
  const wanted = deployedManifest(manifest, publicUrl);
  if (sameManifest(await service.exportManifest(appId), wanted))
    say(`  app ${appId} already points at ${publicUrl}`);
  else {
    await service.update(appId, wanted);
    say(`  app ${appId}: events, /ooo, /statuspilot and the redirect URL now under ${publicUrl}`);
  }

  say("[7/7] Done");
  say(`Install link: ${publicUrl}/install`);
  if (deployed?.outputs.DomainTarget)
    say(`Point ${domain}'s DNS at ${deployed.outputs.DomainTarget}`);
  return { names, publicUrl, appId };
}

/** Asks CloudFormation in the region for every resource type the stack uses. */
async function checkRegionServices(aws: AwsClients, names: StageNames): Promise<void> {
  const missing: string[] = [];
  for (const type of STACK_RESOURCE_TYPES) {
    try {
      await aws.cloudformation.send(new DescribeTypeCommand({ Type: "RESOURCE", TypeName: type }));
    } catch (error: unknown) {
      if (awsErrorName(error) === "TypeNotFoundException") missing.push(type);
      else throw fromAws(error, `checking that ${names.region} has ${type}`, names.region);
    }
  }
  if (missing.length > 0) {
    throw new DeployError(
      "region",
      `${names.region} does not offer what the stack needs: ${missing.join(", ")}`,
      "deploy to a region that has them all (e.g. eu-west-1 or us-east-1)",
    );
  }
}

/** The service URL and the web key when missing, and what --rotate names; answers SSM's state after. */
async function ensureParameters(
  options: DeployOptions,
  deps: DeployDeps,
  names: StageNames,
  params: ParameterStates,
  serviceUrl: string,
): Promise<ParameterStates> {
  const { ssm } = deps.aws;
  const stored = params.serviceBaseUrl?.value;
  if (
    stored !== undefined &&
    stored !== serviceUrl &&
    !options.rotate.includes("service-base-url")
  ) {
    throw new DeployError(
      "bad_input",
      `stage ${names.stage} uses the service at ${stored}, not ${serviceUrl}`,
      "leave out --service-url, or add --rotate service-base-url to change it",
    );
  }
  const wrote: string[] = [];
  if (!params.serviceBaseUrl && (await writeParameter(ssm, names, "serviceBaseUrl", serviceUrl)))
    wrote.push("service-base-url");
  if (!params.webKey && (await writeParameter(ssm, names, "webKey", newWebKey())))
    wrote.push("web-key");
  for (const name of options.rotate) {
    const key = ROTATABLE[name] as ParameterKey;
    const value =
      key === "webKey"
        ? newWebKey()
        : key === "serviceBaseUrl"
          ? serviceUrl
          : fromEnvironment(deps, names, [key as keyof typeof CREDENTIAL_ENV])[
              key as keyof Credentials
            ];
    await writeParameter(ssm, names, key, value ?? "", true);
    wrote.push(`${name} (rotated)`);
  }
  deps.io.out(
    wrote.length > 0 ? `  wrote ${wrote.join(", ")}` : "  every parameter already holds a value",
  );
  return wrote.length > 0 ? readParameters(ssm, names) : params;
}

/** Steps a table from before to today's indexes, one index change per deploy. */
async function upgradeIndexes(
  deps: DeployDeps,
  names: StageNames,
  deployStep: (step: string) => Promise<void>,
): Promise<void> {
  for (let rounds = 0; rounds < 200; rounds++) {
    const step = indexStep(await describeTable(deps.aws.dynamodb, names));
    if (step === "done") return;
    if (step === "wait") {
      deps.io.out("  waiting for DynamoDB to finish an index");
      await deps.sleep(15_000);
      continue;
    }
    await deployStep(step);
  }
  throw new DeployError(
    "migration",
    `the indexes of ${names.table} did not settle`,
    "look at the table's indexes in the DynamoDB console, then run the same deploy again",
  );
}
