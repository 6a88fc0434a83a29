import { AsyncLocalStorage } from "node:async_hooks";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DelayQueue } from "#devstack/queue";
import { LambdaRuntime } from "#devstack/runtime";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { OpenedValueCache } from "#lib/app/secrets/opened-values";
import type { SealOwner } from "#lib/core/ports";

/**
 * Records the AWS actions each function calls while the local stack runs, as its role on AWS
 * would have to allow them. The function is the devstack runtime's current invocation; the
 * calls are taken where the local stack stands in for AWS: the DynamoDB client (dynalite),
 * the vault and the container's cache of opened values before it (KMS: Encrypt and Decrypt, with
 * the field of the owner's context, whether or not the cache answered) and the queues
 * (SQS SendMessage and SendMessageBatch, both the action sqs:SendMessage, by queue).
 */
export interface AwsCall {
  functionName: string;
  /** `dynamodb:GetItem`, `kms:Decrypt`, `sqs:SendMessage`. */
  action: string;
  /** What it names: `table`, `index/<name>`, a KMS field, a queue name. */
  on: string;
}

export interface ActionRecorder {
  calls(): readonly AwsCall[];
  /** Puts every patched method back. */
  restore(): void;
}

/** Installs the recorder (once per test file): patches prototypes, so it sees every instance. */
export function recordAwsActions(): ActionRecorder {
  const current = new AsyncLocalStorage<string>();
  const calls: AwsCall[] = [];
  const record = (action: string, on: string) => {
    const functionName = current.getStore();
    // Outside an invocation: the stack's own set-up (table creation, seeding), not a function.
    if (functionName !== undefined) calls.push({ functionName, action, on });
  };
  const restores: Array<() => void> = [];
  const patch = <T extends object, K extends keyof T>(
    target: T,
    key: K,
    wrap: (original: T[K]) => T[K],
  ) => {
    const original = target[key];
    const hadOwn = Object.hasOwn(target, key);
    target[key] = wrap(original);
    restores.push(() => {
      if (hadOwn) target[key] = original;
      else delete target[key];
    });
  };

  patch(
    LambdaRuntime.prototype,
    "invoke",
    (original) =>
      function (this: LambdaRuntime, fn, event) {
        return current.run(fn.name, () => original.call(this, fn, event));
      },
  );
  patch(
    DynamoDBClient.prototype,
    "send",
    (original) =>
      function (this: DynamoDBClient, ...args: Parameters<DynamoDBClient["send"]>) {
        const command = args[0] as { constructor: { name: string }; input: { IndexName?: string } };
        const action = `dynamodb:${command.constructor.name.replace(/Command$/, "")}`;
        record(action, command.input.IndexName ? `index/${command.input.IndexName}` : "table");
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      } as DynamoDBClient["send"],
  );
  patch(
    LocalTokenVault.prototype,
    "seal",
    (original) =>
      async function (this: LocalTokenVault, plain: string, owner: SealOwner) {
        record("kms:Encrypt", owner.field);
        return original.call(this, plain, owner);
      },
  );
  patch(
    LocalTokenVault.prototype,
    "open",
    (original) =>
      async function (this: LocalTokenVault, sealed: string, owner: SealOwner) {
        record("kms:Decrypt", owner.field);
        return original.call(this, sealed, owner);
      },
  );
  // The container's cache of opened values (lib/app/secrets/opened-values.ts) answers some opens without
  // the vault; here one App serves every function, so one function's open could answer
  // another's. Each open through it is what the role must allow (a cold container asks KMS).
  patch(
    OpenedValueCache.prototype,
    "seal",
    (original) =>
      async function (this: OpenedValueCache, plain: string, owner: SealOwner) {
        record("kms:Encrypt", owner.field);
        return original.call(this, plain, owner);
      },
  );
  patch(
    OpenedValueCache.prototype,
    "open",
    (original) =>
      function (this: OpenedValueCache, sealed: string, owner: SealOwner) {
        record("kms:Decrypt", owner.field);
        return original.call(this, sealed, owner);
      },
  );
  patch(
    DelayQueue.prototype,
    "send",
    (original) =>
      async function (this: DelayQueue<unknown>, ...args: Parameters<DelayQueue<unknown>["send"]>) {
        record("sqs:SendMessage", this.arn.split(":").pop() ?? "");
        return original.apply(this, args);
      },
  );
  // SendMessageBatch is authorised as sqs:SendMessage (there is no action of its own).
  patch(
    DelayQueue.prototype,
    "sendBatch",
    (original) =>
      async function (
        this: DelayQueue<unknown>,
        ...args: Parameters<DelayQueue<unknown>["sendBatch"]>
      ) {
        record("sqs:SendMessage", this.arn.split(":").pop() ?? "");
        return original.apply(this, args);
      },
  );
  return {
    calls: () => calls,
    restore: () => {
      for (const undo of restores.reverse()) undo();
    },
  };
}
