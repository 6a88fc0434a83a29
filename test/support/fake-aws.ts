import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import {
  CloudFormationClient,
  CloudFormationServiceException,
  DescribeStacksCommand,
  DescribeTypeCommand,
  TypeNotFoundException,
} from "@aws-sdk/client-cloudformation";
import { CloudWatchClient, DescribeAlarmsCommand } from "@aws-sdk/client-cloudwatch";
import {
  DeleteTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceNotFoundException,
  ScanCommand,
  UpdateTableCommand,
} from "@aws-sdk/client-dynamodb";
import {
  DecryptCommand,
  DescribeKeyCommand,
  EncryptCommand,
  InvalidCiphertextException,
  KMSClient,
  NotFoundException,
  ScheduleKeyDeletionCommand,
} from "@aws-sdk/client-kms";
import {
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  QueueDoesNotExist,
  SendMessageCommand,
  SQSClient,
} from "@aws-sdk/client-sqs";
import {
  GetParameterCommand,
  GetParametersCommand,
  ParameterAlreadyExists,
  ParameterNotFound,
  PutParameterCommand,
  SSMClient,
} from "@aws-sdk/client-ssm";
import { type AwsStub, mockClient } from "aws-sdk-client-mock";

/**
 * One AWS account and region, as the commands see it through the real AWS SDK v3 clients,
 * stubbed at the client with aws-sdk-client-mock. Each answer has the shape the API reference
 * documents, errors included (the SDK's own exception classes: `ParameterAlreadyExists`,
 * `ParameterNotFound`, a `ValidationError` for a stack that does not exist,
 * `ResourceNotFoundException`, `TypeNotFoundException`, …). KMS seals for real (AES-GCM under a
 * key of this fake account, the encryption context as additional data), so a value opens only
 * under the context it was sealed with, as KMS's does.
 *
 * Every call is recorded as `{action: "ssm:PutParameter", input}`; `intercept` may refuse a
 * call before it happens (an AccessDenied, a throttle, expired credentials, a killed process).
 */
export interface AwsCallRecord {
  action: string;
  input: Record<string, unknown>;
  /** The client instance that sent it (the deploy's own, or a deployed function's). */
  client?: object;
}

export interface FakeTable {
  indexes: Array<{ IndexName: string; ProjectionType: "ALL" | "INCLUDE"; IndexStatus: string }>;
  deletionProtection: boolean;
}

export const ACCOUNT = "123456789012";

/** A stub of any client: handlers are registered by command class, answers are checked by the SDK's types no further. */
// biome-ignore lint/suspicious/noExplicitAny: a stub of six different clients.
type AnyStub = AwsStub<any, any, any>;

const sdkError = (name: string, message: string) =>
  new CloudFormationServiceException({
    name,
    $fault: "client",
    $metadata: { httpStatusCode: 400 },
    message,
  });

/** An SDK-shaped error of any name (AccessDeniedException, ExpiredTokenException, …). */
export const awsError = (name: string, message = name) => sdkError(name, message);

export class FakeAws {
  readonly calls: AwsCallRecord[] = [];
  readonly params = new Map<string, { type: string; value: string; version: number }>();
  stack: { status: string; outputs: Record<string, string> } | undefined;
  table: FakeTable | undefined;
  keys = new Map<string, { arn: string; state: string; secret: Buffer }>();
  queues = new Map<string, number>();
  alarms = new Set<string>();
  /** Resource types the region does not offer (DescribeType answers TypeNotFoundException). */
  missingTypes = new Set<string>();
  /** Sees each call before it happens; an error it answers is thrown instead. */
  intercept: (call: AwsCallRecord) => Error | undefined = () => undefined;
  private readonly stubs: AnyStub[] = [];

  constructor(readonly region: string) {}

  private on<C extends object>(
    stub: AnyStub,
    service: string,
    command: { name: string } & C,
    answer: (input: Record<string, unknown>) => unknown,
  ): void {
    (
      stub as unknown as {
        on(c: C): { callsFake(f: (i: Record<string, unknown>, c: () => object) => unknown): void };
      }
    )
      .on(command)
      .callsFake(async (input: Record<string, unknown>, getClient: () => object) => {
        const call = {
          action: `${service}:${command.name.replace(/Command$/, "")}`,
          input,
          client: getClient(),
        };
        const refused = this.intercept(call);
        this.calls.push(call);
        if (refused) throw refused;
        return answer(input);
      });
  }

  /**
   * Stubs SSM, CloudFormation, KMS, SQS and CloudWatch (every instance) until `restore`.
   * DynamoDB only for the client given to `stubDynamo`: the deployed stack's own client reaches
   * dynalite.
   */
  install(): this {
    const on = this.on.bind(this);
    const ssm = mockClient(SSMClient);
    const cfn = mockClient(CloudFormationClient);
    const kms = mockClient(KMSClient);
    const sqs = mockClient(SQSClient);
    const cw = mockClient(CloudWatchClient);
    this.stubs.push(ssm, cfn, kms, sqs, cw);

    on(ssm, "ssm", GetParametersCommand, (i) => {
      const names = i.Names as string[];
      return {
        Parameters: names
          .filter((n) => this.params.has(n))
          .map((n) => this.parameterView(n, false)),
        InvalidParameters: names.filter((n) => !this.params.has(n)),
      };
    });
    on(ssm, "ssm", GetParameterCommand, (i) => {
      const name = String(i.Name);
      if (!this.params.has(name)) throw new ParameterNotFound({ message: "", $metadata: {} });
      return { Parameter: this.parameterView(name, i.WithDecryption === true) };
    });
    on(ssm, "ssm", PutParameterCommand, (i) => {
      const name = String(i.Name);
      const prior = this.params.get(name);
      if (prior && i.Overwrite !== true) {
        throw new ParameterAlreadyExists({
          message: "The parameter already exists.",
          $metadata: {},
        });
      }
      const version = (prior?.version ?? 0) + 1;
      this.params.set(name, {
        type: String(i.Type ?? prior?.type),
        value: String(i.Value),
        version,
      });
      return { Version: version, Tier: "Standard" };
    });

    on(cfn, "cloudformation", DescribeStacksCommand, (i) => {
      if (!this.stack)
        throw sdkError("ValidationError", `Stack with id ${String(i.StackName)} does not exist`);
      return {
        Stacks: [
          {
            StackName: i.StackName,
            StackStatus: this.stack.status,
            CreationTime: new Date(0),
            Outputs: Object.entries(this.stack.outputs).map(([OutputKey, OutputValue]) => ({
              OutputKey,
              OutputValue,
            })),
          },
        ],
      };
    });
    on(cfn, "cloudformation", DescribeTypeCommand, (i) => {
      if (this.missingTypes.has(String(i.TypeName)))
        throw new TypeNotFoundException({ message: "", $metadata: {} });
      return { TypeName: i.TypeName, Type: "RESOURCE", Visibility: "PUBLIC" };
    });

    on(kms, "kms", EncryptCommand, (i) => {
      const key = this.keyOf(String(i.KeyId));
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key.secret, iv);
      cipher.setAAD(Buffer.from(contextText(i.EncryptionContext)));
      const body = Buffer.concat([
        cipher.update(Buffer.from(i.Plaintext as Uint8Array)),
        cipher.final(),
      ]);
      const arn = Buffer.from(key.arn);
      return {
        KeyId: key.arn,
        CiphertextBlob: Buffer.concat([
          Buffer.from([arn.length]),
          arn,
          iv,
          cipher.getAuthTag(),
          body,
        ]),
      };
    });
    on(kms, "kms", DecryptCommand, (i) => {
      const blob = Buffer.from(i.CiphertextBlob as Uint8Array);
      const arn = blob.subarray(1, 1 + (blob[0] ?? 0)).toString();
      const key = [...this.keys.values()].find((k) => k.arn === arn);
      if (key?.state !== "Enabled")
        throw new InvalidCiphertextException({ message: "", $metadata: {} });
      const at = 1 + arn.length;
      try {
        const decipher = createDecipheriv("aes-256-gcm", key.secret, blob.subarray(at, at + 12));
        decipher.setAAD(Buffer.from(contextText(i.EncryptionContext)));
        decipher.setAuthTag(blob.subarray(at + 12, at + 28));
        return {
          KeyId: arn,
          Plaintext: Buffer.concat([decipher.update(blob.subarray(at + 28)), decipher.final()]),
        };
      } catch {
        throw new InvalidCiphertextException({ message: "", $metadata: {} });
      }
    });
    on(kms, "kms", DescribeKeyCommand, (i) => {
      const key = this.keyOf(String(i.KeyId));
      return {
        KeyMetadata: { KeyId: key.arn.split("/").pop(), Arn: key.arn, KeyState: key.state },
      };
    });
    on(kms, "kms", ScheduleKeyDeletionCommand, (i) => {
      const key = this.keyOf(String(i.KeyId));
      key.state = "PendingDeletion";
      return { KeyId: key.arn, KeyState: key.state, PendingWindowInDays: i.PendingWindowInDays };
    });

    on(sqs, "sqs", GetQueueUrlCommand, (i) => {
      if (!this.queues.has(String(i.QueueName)))
        throw new QueueDoesNotExist({ message: "", $metadata: {} });
      return {
        QueueUrl: `https://sqs.${this.region}.amazonaws.com/${ACCOUNT}/${String(i.QueueName)}`,
      };
    });
    on(sqs, "sqs", GetQueueAttributesCommand, (i) => {
      const name = String(i.QueueUrl).split("/").pop() ?? "";
      return {
        Attributes: {
          ApproximateNumberOfMessages: String(this.queues.get(name) ?? 0),
          ApproximateNumberOfMessagesNotVisible: "0",
        },
      };
    });
    on(sqs, "sqs", SendMessageCommand, () => ({ MessageId: randomBytes(8).toString("hex") }));

    on(cw, "cloudwatch", DescribeAlarmsCommand, (i) => ({
      MetricAlarms: [...this.alarms]
        .filter((a) => a.startsWith(String(i.AlarmNamePrefix ?? "")))
        .map((AlarmName) => ({ AlarmName })),
    }));
    return this;
  }

  /** Stubs this DynamoDB client (the deploy's) with the fake account's table. */
  stubDynamo(client: DynamoDBClient): DynamoDBClient {
    const on = this.on.bind(this);
    const ddb = mockClient(client);
    this.stubs.push(ddb);
    const noTable = () =>
      new ResourceNotFoundException({ message: "Requested resource not found", $metadata: {} });
    on(ddb, "dynamodb", DescribeTableCommand, (i) => {
      if (!this.table) throw noTable();
      const table = this.table;
      const view = {
        TableName: i.TableName,
        TableStatus: "ACTIVE",
        DeletionProtectionEnabled: table.deletionProtection,
        GlobalSecondaryIndexes: table.indexes.map((x) => ({
          IndexName: x.IndexName,
          IndexStatus: x.IndexStatus,
          Projection: { ProjectionType: x.ProjectionType },
        })),
      };
      // An index being built is ACTIVE at the next look (DynamoDB's backfill, sped up).
      for (const x of table.indexes) if (x.IndexStatus === "CREATING") x.IndexStatus = "ACTIVE";
      return { Table: view };
    });
    on(ddb, "dynamodb", UpdateTableCommand, (i) => {
      if (!this.table) throw noTable();
      if (i.DeletionProtectionEnabled !== undefined)
        this.table.deletionProtection = i.DeletionProtectionEnabled === true;
      return {};
    });
    on(ddb, "dynamodb", DeleteTableCommand, () => {
      if (!this.table) throw noTable();
      if (this.table.deletionProtection)
        throw sdkError(
          "ValidationException",
          "Resource cannot be deleted as it is currently protected against deletion",
        );
      this.table = undefined;
      return {};
    });
    on(ddb, "dynamodb", ScanCommand, () => {
      if (!this.table) throw noTable();
      return { Items: [], Count: 0, ScannedCount: 0 };
    });

    return client;
  }

  restore(): void {
    for (const stub of this.stubs.splice(0)) stub.restore();
  }

  /** Creates a KMS key with this alias (as the stack's TokenKey and its alias would). */
  addKey(alias: string): string {
    const arn = `arn:aws:kms:${this.region}:${ACCOUNT}:key/${randomBytes(16).toString("hex")}`;
    this.keys.set(alias, { arn, state: "Enabled", secret: randomBytes(32) });
    return arn;
  }

  /** The clients the commands made (deploy, doctor, destroy), as against the stack's own. */
  readonly commandClients = new WeakSet<object>();

  /** The calls the commands made (not the deployed functions'). */
  commandCalls(): AwsCallRecord[] {
    return this.calls.filter((c) => c.client !== undefined && this.commandClients.has(c.client));
  }

  /** The calls made, as IAM actions, in order. */
  actions(): string[] {
    return this.calls.map((c) => c.action);
  }

  private keyOf(id: string) {
    const key =
      this.keys.get(id) ??
      [...this.keys.values()].find((k) => k.arn === id || k.arn.endsWith(`/${id}`));
    if (!key) throw new NotFoundException({ message: `Key '${id}' does not exist`, $metadata: {} });
    return key;
  }

  private parameterView(name: string, decrypt: boolean) {
    const p = this.params.get(name);
    if (!p) throw new ParameterNotFound({ message: "", $metadata: {} });
    // A SecureString read without decryption answers its ciphertext, never the value.
    const value =
      p.type === "SecureString" && !decrypt
        ? `AQICAH${Buffer.from(name).toString("base64")}`
        : p.value;
    return {
      Name: name,
      Type: p.type,
      Value: value,
      Version: p.version,
      ARN: `arn:aws:ssm:${this.region}:${ACCOUNT}:parameter${name}`,
    };
  }
}

const contextText = (context: unknown): string =>
  JSON.stringify(
    Object.entries((context ?? {}) as Record<string, string>).sort(([a], [b]) => (a < b ? -1 : 1)),
  );
