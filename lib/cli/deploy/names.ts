import { partition } from "@aws-sdk/core/client";
import { DeployError } from "./errors";

/**
 * The names serverless.yml gives a stage's resources, in one place: the deploy, the doctor and
 * the destroy find the stack's parts by them, and the stage name is checked against the
 * longest of them before anything is made.
 */
export const SERVICE = "statuspilot";

/** The functions serverless.yml declares, and the one the stack adds (app-secret.yml). */
export const FUNCTION_NAMES = [
  "serviceEvents",
  "oooCommand",
  "statuspilotCommand",
  "serviceInteractive",
  "calendarHooks",
  "adminOoo",
  "adminUsers",
  "web",
  "webCalendars",
  "health",
  "tick",
  "poll",
  "syncWorker",
  "transitionWorker",
  "sealClientSecret",
] as const;

/** AWS's length limits on the names built from the stage (Lambda function and IAM role: 64). */
const NAME_LIMITS: Array<{ what: string; limit: number; name: (stage: string) => string }> = [
  ...FUNCTION_NAMES.map((fn) => ({
    what: `the function and role name ${SERVICE}-<stage>-${fn}`,
    limit: 64,
    name: (stage: string) => `${SERVICE}-${stage}-${fn}`,
  })),
  { what: "the queue name", limit: 80, name: (s) => `${SERVICE}-${s}-transition-dlq` },
  { what: "the stack name", limit: 128, name: (s) => `${SERVICE}-${s}` },
];

/** The stage's parameters in SSM: what the stack resolves or its functions read. */
export const PARAMETERS = {
  serviceBaseUrl: { name: "service-base-url", type: "String" },
  appId: { name: "app-id", type: "String" },
  signingSecret: { name: "signing-secret", type: "SecureString" },
  oauthClientId: { name: "oauth-client-id", type: "String" },
  oauthClientSecret: { name: "oauth-client-secret", type: "SecureString" },
  webKey: { name: "web-key", type: "SecureString" },
} as const;
export type ParameterKey = keyof typeof PARAMETERS;

export interface StageNames {
  stage: string;
  region: string;
  stack: string;
  table: string;
  keyAlias: string;
  /** `/statuspilot/<stage>/<name>`. */
  parameter(key: ParameterKey): string;
  alarmPrefix: string;
  deadLetterQueues: string[];
}

/**
 * The stage, checked as AWS would check the names made from it: letters, digits and hyphens,
 * starting with a letter (CloudFormation's stack names), short enough for every name.
 */
export function checkStage(stage: string | undefined): string {
  if (stage === undefined || stage === "") {
    throw new DeployError("bad_input", "no stage given", "pass --stage NAME, e.g. --stage prod");
  }
  if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(stage) || stage.endsWith("-")) {
    throw new DeployError(
      "bad_input",
      `the stage "${stage}" would make names AWS refuses (the stack statuspilot-${stage})`,
      "use letters, digits and hyphens, starting with a letter and not ending with a hyphen",
    );
  }
  // The tightest limit decides how long a stage may be.
  const tightest = NAME_LIMITS.map((l) => ({ ...l, room: l.limit - l.name("").length })).sort(
    (a, b) => a.room - b.room,
  )[0];
  if (tightest && stage.length > tightest.room) {
    throw new DeployError(
      "bad_input",
      `the stage "${stage}" is too long: ${tightest.what} would be ${tightest.name(stage).length} characters, AWS allows ${tightest.limit}`,
      `use a stage of at most ${tightest.room} characters`,
    );
  }
  return stage;
}

/** The region, checked against the AWS SDK's list of regions (a typo is caught before a call). */
export function checkRegion(region: string | undefined): string {
  if (region === undefined || region === "") {
    throw new DeployError(
      "bad_input",
      "no region given",
      "pass --region, e.g. --region eu-west-1 (or set AWS_REGION)",
    );
  }
  // The SDK's partition table describes each region it knows; an unknown one gets no description.
  const known = (partition(region) as { description?: string }).description !== undefined;
  if (!known) {
    throw new DeployError(
      "bad_input",
      `"${region}" is not an AWS region the SDK knows`,
      "pass a region such as eu-west-1 or us-east-1 (`aws ec2 describe-regions` lists the account's)",
    );
  }
  return region;
}

export function stageNames(stage: string, region: string): StageNames {
  const prefix = `${SERVICE}-${stage}`;
  return {
    stage,
    region,
    stack: prefix,
    table: prefix,
    keyAlias: `alias/${prefix}-tokens`,
    parameter: (key) => `/${SERVICE}/${stage}/${PARAMETERS[key].name}`,
    alarmPrefix: `${prefix}-`,
    deadLetterQueues: [`${prefix}-transition-dlq`, `${prefix}-sync-dlq`],
  };
}

/**
 * Every resource type the stack declares (a test holds this list to the packaged template):
 * a first deploy asks CloudFormation in the region for each, so a region without one of the
 * services is named before anything is made.
 */
export const STACK_RESOURCE_TYPES = [
  "AWS::ApiGatewayV2::Api",
  "AWS::ApiGatewayV2::ApiMapping",
  "AWS::ApiGatewayV2::DomainName",
  "AWS::ApiGatewayV2::Integration",
  "AWS::ApiGatewayV2::Route",
  "AWS::ApiGatewayV2::Stage",
  "AWS::CloudWatch::Alarm",
  "AWS::CloudWatch::Dashboard",
  "AWS::DynamoDB::Table",
  "AWS::Events::Rule",
  "AWS::IAM::Role",
  "AWS::KMS::Alias",
  "AWS::KMS::Key",
  "AWS::Lambda::EventSourceMapping",
  "AWS::Lambda::Function",
  "AWS::Lambda::Permission",
  "AWS::Lambda::Version",
  "AWS::Logs::LogGroup",
  "AWS::S3::Bucket",
  "AWS::S3::BucketPolicy",
  "AWS::SNS::Topic",
  "AWS::SQS::Queue",
] as const;
