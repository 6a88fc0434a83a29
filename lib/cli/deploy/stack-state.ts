import { type CloudFormationClient, DescribeStacksCommand } from "@aws-sdk/client-cloudformation";
import {
  DescribeTableCommand,
  type DynamoDBClient,
  type TableDescription,
} from "@aws-sdk/client-dynamodb";
import { awsErrorName } from "./aws";
import { DeployError, fromAws } from "./errors";
import type { StageNames } from "./names";

/** The stage's stack as CloudFormation describes it, or undefined when it does not exist. */
export interface StackState {
  status: string;
  outputs: Record<string, string>;
}

/** States from which an update or a delete can start (everything else is busy or broken). */
const SETTLED = /(_COMPLETE)$/;

export async function describeStack(
  cloudformation: CloudFormationClient,
  names: StageNames,
): Promise<StackState | undefined> {
  try {
    const out = await cloudformation.send(new DescribeStacksCommand({ StackName: names.stack }));
    const stack = out.Stacks?.[0];
    if (!stack || stack.StackStatus === "DELETE_COMPLETE") return undefined;
    const outputs: Record<string, string> = {};
    for (const o of stack.Outputs ?? []) {
      if (o.OutputKey !== undefined && o.OutputValue !== undefined)
        outputs[o.OutputKey] = o.OutputValue;
    }
    return { status: stack.StackStatus ?? "", outputs };
  } catch (error: unknown) {
    // CloudFormation answers a stack that does not exist with a ValidationError.
    if (
      awsErrorName(error) === "ValidationError" &&
      /does not exist/.test(String((error as Error).message))
    ) {
      return undefined;
    }
    throw fromAws(error, `describing the stack ${names.stack}`, names.region);
  }
}

/** Refuses to start on a stack that is busy or that CloudFormation cannot update. */
export function checkStackSettled(stack: StackState | undefined, names: StageNames): void {
  if (!stack) return;
  if (stack.status === "ROLLBACK_COMPLETE") {
    throw new DeployError(
      "stack_failed",
      `the stack ${names.stack} failed to create (ROLLBACK_COMPLETE) and CloudFormation cannot update it`,
      `run \`statuspilot destroy --stage ${names.stage} --region ${names.region}\`, then deploy again (its stack events say why the first create failed)`,
    );
  }
  if (!SETTLED.test(stack.status) || stack.status.endsWith("_IN_PROGRESS")) {
    throw new DeployError(
      "stack_busy",
      `the stack ${names.stack} is ${stack.status}`,
      "wait until CloudFormation settles it (the console's stack events show progress), then run the same command again",
    );
  }
}

/** The stage's table, or undefined when there is none (a first deploy). */
export async function describeTable(
  dynamodb: DynamoDBClient,
  names: StageNames,
): Promise<TableDescription | undefined> {
  try {
    return (await dynamodb.send(new DescribeTableCommand({ TableName: names.table }))).Table;
  } catch (error: unknown) {
    if (awsErrorName(error) === "ResourceNotFoundException") return undefined;
    throw fromAws(error, `describing the table ${names.table}`, names.region);
  }
}
