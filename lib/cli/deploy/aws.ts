import { CloudFormationClient } from "@aws-sdk/client-cloudformation";
import { CloudWatchClient } from "@aws-sdk/client-cloudwatch";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { KMSClient } from "@aws-sdk/client-kms";
import { SQSClient } from "@aws-sdk/client-sqs";
import { SSMClient } from "@aws-sdk/client-ssm";

/**
 * The AWS SDK v3 clients the commands call, one per service, all in the stage's region. The
 * commands call AWS only through these (tests stub them at the client); osls, a child process,
 * makes its own calls (lib/cli/deploy/osls.ts).
 */
export interface AwsClients {
  cloudformation: CloudFormationClient;
  ssm: SSMClient;
  dynamodb: DynamoDBClient;
  kms: KMSClient;
  sqs: SQSClient;
  cloudwatch: CloudWatchClient;
}

export function awsClients(region: string): AwsClients {
  // The SDK retries throttling and transient errors itself (standard mode, 3 attempts); a few
  // more here, since a deploy that gives up on a throttle has to be run again by hand.
  const config = { region, maxAttempts: 6 };
  return {
    cloudformation: new CloudFormationClient(config),
    ssm: new SSMClient(config),
    dynamodb: new DynamoDBClient(config),
    kms: new KMSClient(config),
    sqs: new SQSClient(config),
    cloudwatch: new CloudWatchClient(config),
  };
}

export function closeClients(clients: AwsClients): void {
  for (const client of Object.values(clients)) client.destroy();
}

/** The SDK error's name (`ParameterNotFound`, `ValidationError`, …), or "". */
export const awsErrorName = (error: unknown): string =>
  typeof error === "object" && error !== null && "name" in error ? String(error.name) : "";
