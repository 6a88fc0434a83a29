import { DeleteTableCommand, UpdateTableCommand } from "@aws-sdk/client-dynamodb";
import { DescribeKeyCommand, ScheduleKeyDeletionCommand } from "@aws-sdk/client-kms";
import type { CliIo } from "../io";
import { type AwsClients, awsErrorName } from "./aws";
import { DeployError, fromAws } from "./errors";
import type { StageNames } from "./names";
import type { OslsRunner } from "./osls";
import { describeStack, describeTable } from "./stack-state";

export interface DestroyDeps {
  aws: AwsClients;
  osls: OslsRunner;
  io: CliIo;
  /** Asks the operator a question and answers the line they type. */
  ask(question: string): Promise<string>;
}

/** How long a scheduled key deletion waits (KMS allows 7 to 30 days; it can be cancelled meanwhile). */
export const KEY_DELETION_DAYS = 30;

/**
 * `statuspilot destroy`: removes the stage's stack (osls remove). The table and the token key
 * are retained by the stack, so the data stays, unless `deleteData`: then, once the stage's name
 * is typed back, the key is scheduled for deletion and the table deleted too. Each part that is
 * already gone is skipped, so a stopped destroy finishes when run again.
 */
export async function destroy(
  names: StageNames,
  options: { deleteData: boolean },
  deps: DestroyDeps,
): Promise<void> {
  const { aws, io } = deps;
  if (options.deleteData) {
    const typed = (
      await deps.ask(
        `This deletes every user's data of stage ${names.stage} (table ${names.table}) and schedules its token key for deletion. Type the stage's name to go on: `,
      )
    ).trim();
    if (typed !== names.stage) {
      throw new DeployError(
        "not_confirmed",
        `"${typed}" is not the stage's name; nothing was removed`,
        `type ${names.stage} exactly to delete its data, or leave out --delete-data to keep it`,
      );
    }
    // Before the stack goes: its alias is the way to the key, and the stack removes the alias.
    await scheduleKeyDeletion(aws, names, io);
  }
  const stack = await describeStack(aws.cloudformation, names);
  if (stack) {
    if (stack.status.endsWith("_IN_PROGRESS")) {
      throw new DeployError(
        "stack_busy",
        `the stack ${names.stack} is ${stack.status}`,
        "wait until CloudFormation settles it, then run the same command again",
      );
    }
    io.out(`Removing the stack ${names.stack}`);
    await deps.osls.run(
      "remove",
      { stage: names.stage, region: names.region, params: {} },
      (line) => io.out(`  ${line}`),
    );
  } else io.out(`The stack ${names.stack} does not exist (already removed)`);

  if (!options.deleteData) {
    io.out(
      `Kept: the table ${names.table} and the token key (both retained; a deploy of this stage cannot create them again while they exist), the parameters /statuspilot/${names.stage}/*, and the app at the service.`,
    );
    return;
  }
  const table = await describeTable(aws.dynamodb, names);
  if (!table) {
    io.out(`The table ${names.table} does not exist (already deleted)`);
    return;
  }
  try {
    if (table.DeletionProtectionEnabled) {
      await aws.dynamodb.send(
        new UpdateTableCommand({ TableName: names.table, DeletionProtectionEnabled: false }),
      );
    }
    await aws.dynamodb.send(new DeleteTableCommand({ TableName: names.table }));
    io.out(`Deleted the table ${names.table}`);
  } catch (error: unknown) {
    if (awsErrorName(error) === "ResourceNotFoundException") return;
    throw fromAws(error, `deleting the table ${names.table}`, names.region);
  }
  io.out(
    `Kept: the parameters /statuspilot/${names.stage}/* and the app at the service (a later deploy reuses them).`,
  );
}

async function scheduleKeyDeletion(aws: AwsClients, names: StageNames, io: CliIo): Promise<void> {
  try {
    const key = await aws.kms.send(new DescribeKeyCommand({ KeyId: names.keyAlias }));
    const id = key.KeyMetadata?.Arn;
    if (!id || key.KeyMetadata?.KeyState === "PendingDeletion") {
      io.out(`The token key is already scheduled for deletion`);
      return;
    }
    await aws.kms.send(
      new ScheduleKeyDeletionCommand({ KeyId: id, PendingWindowInDays: KEY_DELETION_DAYS }),
    );
    io.out(
      `Scheduled the token key ${id} for deletion in ${KEY_DELETION_DAYS} days (\`aws kms cancel-key-deletion\` undoes it until then)`,
    );
  } catch (error: unknown) {
    if (awsErrorName(error) === "NotFoundException") {
      io.out(`No key ${names.keyAlias} (already removed with the stack, or never made)`);
      return;
    }
    throw fromAws(error, `scheduling the deletion of ${names.keyAlias}`, names.region);
  }
}
