import { checkOptions } from "./deploy";
import { PARAMETERS, STACK_RESOURCE_TYPES } from "./names";
import type { DeployOptions } from "./types";

/**
 * What `statuspilot deploy --plan` prints: every step, and every AWS and service call each may
 * make, without making any (so what depends on the stage's state is said as a condition).
 */
export function planLines(options: DeployOptions): string[] {
  const names = checkOptions(options);
  const p = (key: keyof typeof PARAMETERS) => `${names.parameter(key)} (${PARAMETERS[key].type})`;
  const osls = `osls deploy --stage ${names.stage} --region ${names.region}`;
  const rotations = options.rotate.map(
    (name) => `ssm:PutParameter --overwrite /statuspilot/${names.stage}/${name}`,
  );
  return [
    `statuspilot deploy: the plan for stage ${names.stage} in ${names.region} (nothing is called or changed)`,
    "1. Read what exists",
    `   AWS: cloudformation:DescribeStacks ${names.stack}; ssm:GetParameters ${Object.keys(
      PARAMETERS,
    )
      .map((k) => names.parameter(k as keyof typeof PARAMETERS))
      .join(", ")}`,
    `   AWS, on a first deploy: cloudformation:DescribeType for each of the ${STACK_RESOURCE_TYPES.length} resource types the stack uses`,
    `   file: ${options.manifestFile}`,
    "2. The app at the service",
    `   if ${names.parameter("appId")} exists: service apps.manifest.export (checks the token and the app)`,
    options.appId
      ? `   else: service apps.manifest.export ${options.appId} (adopted), then AWS ssm:PutParameter ${p("appId")}, then ${p("signingSecret")}, ${p("oauthClientId")}, ${p("oauthClientSecret")} from STATUSPILOT_* variables (those SSM lacks)`
      : `   else: service apps.manifest.create from ${options.manifestFile} (no events subscription yet), then AWS ssm:PutParameter ${p("appId")}, then ${p("signingSecret")}, ${p("oauthClientId")}, ${p("oauthClientSecret")} from its answer`,
    "3. The stage's parameters (a parameter that holds a value is left alone)",
    `   AWS, each if missing: ssm:PutParameter ${p("serviceBaseUrl")}${options.serviceUrl ? ` = ${options.serviceUrl}` : ""}, ${p("webKey")} (48 random bytes)`,
    ...(rotations.length > 0 ? [`   AWS: ${rotations.join("; ")}`] : []),
    "4. Upgrades this release needs (on a stage whose record in the stack lacks them)",
    `   index-projections: AWS dynamodb:DescribeTable ${names.table}, then one ${osls} --param=indexUpgrade=<step> per step (omit-due, legacy-poll, omit-poll) the table still needs`,
    "5. Deploy the stack",
    `   ${osls} --param=clientSecretVersion=<version of ${names.parameter("oauthClientSecret")}> --param=legacySealedValues=… --param=migrations=… --param=indexUpgrade=none${options.domain ? ` --param=domain=${options.domain} --param=domainCertificateArn=${options.certificateArn}` : ""}`,
    `   (CloudFormation creates or updates ${names.stack}; infra/deployer-policy.json lists what it may do), then AWS cloudformation:DescribeStacks for PublicBaseUrl`,
    `   owner-bound-seals, on a stage from before it: AWS dynamodb:Scan, GetItem, PutItem on ${names.table} and kms:Decrypt, kms:Encrypt with ${names.keyAlias}, then ${osls} --param=legacySealedValues=false`,
    "6. Point the app at the deployment",
    "   service apps.manifest.export, and apps.manifest.update when its events, /ooo, /statuspilot or redirect URL differ",
    "7. Print the install link <PublicBaseUrl>/install, then run statuspilot doctor (its calls: statuspilot doctor --help)",
  ];
}
