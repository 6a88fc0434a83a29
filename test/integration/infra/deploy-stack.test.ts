import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { runInNewContext } from "node:vm";
import { DecryptCommand, KMSClient } from "@aws-sdk/client-kms";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { expectedAlarms } from "#lib/cli/deploy/doctor";
import {
  FUNCTION_NAMES,
  PARAMETERS,
  STACK_RESOURCE_TYPES,
  stageNames,
} from "#lib/cli/deploy/names";
import { statementsOf } from "../../e2e/role-grants";
import { validateTemplate } from "../../support/cfn-spec";
import { ACCOUNT, FakeAws } from "../../support/fake-aws";
import { allows, deployerPolicy } from "../../support/iam-policy";
import { type PackagedStack, packageStack } from "../../support/osls-package";

// The stack osls really produces (`osls package`, offline), held to AWS's published resource
// specification, to the names the deploy, doctor and destroy commands use, and to the deployer
// policy; and the stack's own sealing of the client secret (its custom resource's inline code),
// run against the SDK clients stubbed at the client.

let stack: PackagedStack | undefined;
const names = stageNames("test", "eu-west-1");
const resources = () => stack?.resources ?? {};
const ofType = (type: string) => Object.entries(resources()).filter(([, r]) => r.Type === type);

beforeAll(async () => {
  stack = await packageStack();
}, 180_000);
afterAll(async () => {
  await stack?.remove();
});

describe("the packaged stack", () => {
  it("is valid against AWS's resource specification: types, properties, required ones, value types and every reference", async () => {
    // Act
    const problems = await validateTemplate({
      Resources: resources() as never,
      Conditions: stack?.conditions ?? {},
      Outputs: stack?.outputs ?? {},
    });
    // Assess
    expect(problems).toEqual([]);
    expect(Object.keys(resources()).length).toBeGreaterThan(100);
  });

  it("has no SSM parameter to fill in after a deploy: the public URL and the sealed client secret come from the stack", () => {
    const environment = resources().WebLambdaFunction?.Properties?.Environment as
      | { Variables: Record<string, unknown> }
      | undefined;
    const env = environment?.Variables ?? {};
    expect(env.PUBLIC_BASE_URL).toEqual({
      "Fn::If": ["HasDomain", "https://", { "Fn::GetAtt": ["HttpApi", "ApiEndpoint"] }],
    });
    expect(env.OAUTH_CLIENT_SECRET_SEALED).toEqual({
      "Fn::GetAtt": ["SealedClientSecret", "Sealed"],
    });
    // Every parameter CloudFormation resolves is one the deploy writes.
    const resolved = [...JSON.stringify(resources()).matchAll(/\{\{resolve:ssm:([^}]+)\}\}/g)].map(
      (m) => m[1],
    );
    const written = Object.keys(PARAMETERS).map((k) =>
      names.parameter(k as keyof typeof PARAMETERS),
    );
    expect(resolved.length).toBeGreaterThan(0);
    for (const name of resolved) expect(written).toContain(name);
    expect(resolved).not.toContain("/statuspilot/test/public-base-url");
    expect(resolved).not.toContain("/statuspilot/test/oauth-client-secret-sealed");
  });

  it("names what the deploy, the doctor and the destroy look for", () => {
    const types = new Set(
      Object.values(resources())
        .map((r) => r.Type)
        .filter((t) => !t.startsWith("Custom::")),
    );
    expect([...types].sort()).toEqual([...STACK_RESOURCE_TYPES].sort());
    const alarmNames = ofType("AWS::CloudWatch::Alarm")
      .map(([, a]) => a.Properties.AlarmName)
      .sort();
    expect(alarmNames).toEqual(expectedAlarms(names));
    const functionNames = ofType("AWS::Lambda::Function")
      .map(([, f]) => f.Properties.FunctionName)
      .sort();
    expect(functionNames).toEqual(FUNCTION_NAMES.map((f) => `statuspilot-test-${f}`).sort());
    const queueNames = ofType("AWS::SQS::Queue").map(([, q]) => q.Properties.QueueName);
    for (const dlq of names.deadLetterQueues) expect(queueNames).toContain(dlq);
    expect(resources().TokenKeyAlias?.Properties.AliasName).toBe(names.keyAlias);
    expect(resources().StatusTable?.Properties.TableName).toBe(names.table);
    expect(Object.keys(stack?.outputs ?? {})).toEqual(
      expect.arrayContaining([
        "PublicBaseUrl",
        "StatuspilotMigrations",
        "Domain",
        "DomainCertificateArn",
        "DomainTarget",
      ]),
    );
  });

  it("is a stack the deployer policy can create: every role it may pass, every resource named within the policy", () => {
    // Prepare
    const policy = deployerPolicy();
    const on = (service: string, resource: string) =>
      `arn:aws:${service}:eu-west-1:${ACCOUNT}:${resource}`;
    // What CloudFormation does, with the deployer's credentials, for each kind of named resource.
    const creates: Array<[string, string, (p: Record<string, unknown>) => string]> = [
      [
        "AWS::IAM::Role",
        "iam:CreateRole",
        (p) => `arn:aws:iam::${ACCOUNT}:role/${String(p.RoleName)}`,
      ],
      [
        "AWS::IAM::Role",
        "iam:PassRole",
        (p) => `arn:aws:iam::${ACCOUNT}:role/${String(p.RoleName)}`,
      ],
      [
        "AWS::IAM::Role",
        "iam:PutRolePolicy",
        (p) => `arn:aws:iam::${ACCOUNT}:role/${String(p.RoleName)}`,
      ],
      [
        "AWS::Lambda::Function",
        "lambda:CreateFunction",
        (p) => on("lambda", `function:${String(p.FunctionName)}`),
      ],
      [
        "AWS::Logs::LogGroup",
        "logs:CreateLogGroup",
        (p) => on("logs", `log-group:${String(p.LogGroupName)}`),
      ],
      ["AWS::SQS::Queue", "sqs:CreateQueue", (p) => on("sqs", String(p.QueueName))],
      [
        "AWS::DynamoDB::Table",
        "dynamodb:CreateTable",
        (p) => on("dynamodb", `table/${String(p.TableName)}`),
      ],
      [
        "AWS::CloudWatch::Alarm",
        "cloudwatch:PutMetricAlarm",
        (p) => on("cloudwatch", `alarm:${String(p.AlarmName)}`),
      ],
      [
        "AWS::CloudWatch::Dashboard",
        "cloudwatch:PutDashboard",
        (p) => `arn:aws:cloudwatch::${ACCOUNT}:dashboard/${String(p.DashboardName)}`,
      ],
      ["AWS::SNS::Topic", "sns:CreateTopic", (p) => on("sns", String(p.TopicName))],
      ["AWS::KMS::Alias", "kms:CreateAlias", (p) => on("kms", String(p.AliasName))],
    ];
    // Act
    const refused = creates.flatMap(([type, action, arnOf]) =>
      ofType(type).flatMap(([id, r]) => {
        const resource = arnOf(r.Properties);
        const context: Record<string, string> =
          action === "iam:PassRole" ? { "iam:PassedToService": "lambda.amazonaws.com" } : {};
        return allows(policy, { action, resource, context })
          ? []
          : [`${id}: ${action} ${resource}`];
      }),
    );
    // Assess
    expect(refused).toEqual([]);
    expect(ofType("AWS::IAM::Role").length).toBeGreaterThan(10);
  });
});

describe("the stack's sealing of the client secret (its custom resource)", () => {
  let aws: FakeAws;
  let answers: Array<Record<string, unknown>> = [];
  let responseUrl = "";
  let close: () => Promise<void> = async () => {};
  beforeAll(async () => {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        answers.push({
          method: req.method,
          ...(JSON.parse(Buffer.concat(chunks).toString()) as object),
        });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    responseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/presigned`;
    close = () => new Promise<void>((r) => server.close(() => r()));
  });
  afterAll(async () => close());
  afterEach(() => {
    aws?.restore();
    answers = [];
  });

  /** The function's inline code as CloudFormation runs it: CommonJS, the runtime's AWS SDK. */
  const handler = () => {
    const code = String(
      (resources().SealClientSecretFunction?.Properties?.Code as { ZipFile?: string } | undefined)
        ?.ZipFile,
    );
    const module = { exports: {} as { handler?: (e: unknown, c: unknown) => Promise<void> } };
    runInNewContext(code, {
      require: createRequire(import.meta.url),
      module,
      exports: module.exports,
      Buffer,
      TextEncoder,
      fetch,
    });
    if (!module.exports.handler) throw new Error("no handler");
    return module.exports.handler;
  };
  const event = (type: string) => ({
    RequestType: type,
    ResponseURL: responseUrl,
    StackId: "arn:aws:cloudformation:eu-west-1:123456789012:stack/statuspilot-test/id",
    RequestId: "r-1",
    LogicalResourceId: "SealedClientSecret",
    ResourceProperties: resources().SealedClientSecret?.Properties,
  });

  it("seals the SecureString under the app's owner context and answers SUCCESS with it, calling only what its role grants", async () => {
    // Prepare
    aws = new FakeAws("eu-west-1").install();
    const keyArn = aws.addKey("TokenKey");
    aws.params.set("/statuspilot/test/oauth-client-secret", {
      type: "SecureString",
      value: "the-client-secret",
      version: 3,
    });
    // Act
    await handler()(
      {
        ...event("Create"),
        ResourceProperties: { ...event("Create").ResourceProperties, KeyId: keyArn },
      },
      { logStreamName: "s" },
    );
    // Assess: the answer CloudFormation reads; the value opens only for the app's owner.
    const [answer] = answers;
    expect(answer).toMatchObject({
      method: "PUT",
      Status: "SUCCESS",
      PhysicalResourceId: "SealedClientSecret",
      RequestId: "r-1",
      NoEcho: true,
    });
    const sealed = String((answer?.Data as { Sealed?: string } | undefined)?.Sealed);
    expect(sealed).toMatch(/^kms:/);
    expect(JSON.stringify(answer)).not.toContain("the-client-secret");
    const kms = new KMSClient({ region: "eu-west-1" });
    const blob = Buffer.from(sealed.slice(4), "base64");
    const opened = await kms.send(
      new DecryptCommand({
        CiphertextBlob: blob,
        EncryptionContext: { team: "-", user: "-", field: "oauth_client_secret" },
      }),
    );
    expect(Buffer.from(opened.Plaintext ?? []).toString()).toBe("the-client-secret");
    await expect(
      kms.send(
        new DecryptCommand({
          CiphertextBlob: blob,
          EncryptionContext: { team: "-", user: "-", field: "access_token" },
        }),
      ),
    ).rejects.toThrow();
    // Its calls, each granted by its role in the packaged stack.
    const role = statementsOf(stack, "SealClientSecretRole");
    const called = aws.calls.filter((c) => c.action !== "kms:Decrypt").map((c) => c.action);
    expect(called).toEqual(["ssm:GetParameter", "kms:Encrypt"]);
    const ssm = role.find((s) => s.Action === "ssm:GetParameter");
    expect(JSON.stringify(ssm?.Resource)).toContain("/statuspilot/test/oauth-client-secret");
    const encrypt = role.find((s) => s.Action === "kms:Encrypt");
    expect(encrypt?.Condition?.StringEquals).toEqual({
      "kms:EncryptionContext:team": "-",
      "kms:EncryptionContext:user": "-",
      "kms:EncryptionContext:field": ["oauth_client_secret"],
    });
  });

  it("answers FAILED naming the parameter when it is missing, and SUCCESS without a call on Delete", async () => {
    // Prepare
    aws = new FakeAws("eu-west-1").install();
    aws.addKey("TokenKey");
    // Act
    await handler()(event("Create"), { logStreamName: "s" });
    await handler()(event("Delete"), { logStreamName: "s" });
    // Assess
    expect(answers[0]).toMatchObject({ Status: "FAILED" });
    expect(String(answers[0]?.Reason)).toContain("/statuspilot/test/oauth-client-secret");
    expect(String(answers[0]?.Reason)).toContain("ParameterNotFound");
    expect(answers[1]).toMatchObject({ Status: "SUCCESS", Data: {} });
    expect(aws.calls.map((c) => c.action)).toEqual(["ssm:GetParameter"]);
  });
});
