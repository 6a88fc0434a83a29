import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { routes } from "#functions/routes";
import { functionEntries } from "#infra/build";
import { renderTableJson } from "#infra/table-resource";
import type { AppModules } from "#lib/app/compose/modules";
import { SYNC_GATE_PREFIX } from "#lib/store/items/sync-gate";
import { DUE_INDEX, POLL_INDEX, TTL_ATTRIBUTE } from "#lib/store/table";
import { grantsOf, roleOf } from "../../e2e/role-grants";
import { resolveConditions } from "../../support/cfn-conditions";
import {
  type CfnResource,
  type PackagedStack,
  packageStack,
  productFunctions,
  repoRoot,
} from "../../support/osls-package";

let stack: PackagedStack | undefined;
let resources: Record<string, CfnResource> = {};
let outDir = "";

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);

/** Every IAM statement in every role's inline policies, as deployed (conditions resolved). */
function roleStatements(): Array<{ role: string; statement: Record<string, unknown> }> {
  return ofType("AWS::IAM::Role").flatMap(([role, r]) =>
    (
      resolveConditions(r.Properties.Policies ?? [], stack?.conditions ?? {}) as Array<{
        PolicyDocument: { Statement: unknown[] };
      }>
    ).flatMap((p) =>
      p.PolicyDocument.Statement.map((s) => ({ role, statement: s as Record<string, unknown> })),
    ),
  );
}

/** Every action a role's statements name. */
const actionsOf = (role: string): string[] =>
  roleStatements()
    .filter((s) => s.role === role)
    .flatMap(({ statement }) => [statement.Action].flat().map(String));

describe("serverless.yml packaged offline with osls", () => {
  beforeAll(async () => {
    // Prepare: a clone without dist/, packaged by osls alone, offline.
    stack = await packageStack();
    resources = stack.resources;
    outDir = stack.outDir;
  }, 120_000);

  afterAll(async () => {
    await stack?.remove();
  });

  it("bundles every function itself, with no separate build step", async () => {
    const zips = (await readdir(outDir)).filter((f) => f.endsWith(".zip")).sort();
    expect(zips).toEqual(
      Object.keys(functionEntries)
        .map((name) => `${name}.zip`)
        .sort(),
    );
  });

  it("grants each role only the table actions its code paths use", () => {
    // Prepare
    const resourcesOf = (role: string, action: string): string =>
      JSON.stringify(
        roleStatements()
          .filter((s) => s.role === role && [s.statement.Action].flat().includes(action))
          .map((s) => s.statement.Resource),
      );
    const all = roleStatements().flatMap(({ statement }) => [statement.Action].flat().map(String));
    // Assess
    expect(all).not.toContain("dynamodb:TransactWriteItems");
    expect(all).not.toContain("dynamodb:ConditionCheckItem");
    // UpdateItem on the whole table is the shared rate budget's: only functions that reconcile
    // may write a status. The push side may update only the sync gates' partitions.
    const gateOnly = (role: string): boolean =>
      roleStatements()
        .filter(
          (s) => s.role === role && [s.statement.Action].flat().includes("dynamodb:UpdateItem"),
        )
        .every(
          ({ statement }) =>
            JSON.stringify(statement.Condition) ===
            JSON.stringify({
              "ForAllValues:StringLike": { "dynamodb:LeadingKeys": [`${SYNC_GATE_PREFIX}*`] },
            }),
        );
    const updating = ofType("AWS::IAM::Role")
      .map(([role]) => role)
      .filter((role) => actionsOf(role).includes("dynamodb:UpdateItem"));
    expect(updating.filter((role) => !gateOnly(role)).sort()).toEqual([
      "AdminOooRole",
      "AdminUsersRole",
      "ServiceEventsRole",
      "SyncWorkerRole",
      "TransitionWorkerRole",
      "WebCalendarsRole",
      "WebRole",
    ]);
    expect(updating.filter(gateOnly).sort()).toEqual(["CalendarHooksRole"]);
    for (const role of updating) {
      expect(resourcesOf(role, "dynamodb:UpdateItem"), role).not.toContain("/index/");
    }
    expect(
      actionsOf("CalendarHooksRole")
        .filter((a) => a.startsWith("dynamodb:"))
        .sort(),
    ).toEqual(["dynamodb:GetItem", "dynamodb:UpdateItem"]);
    expect(
      actionsOf("PollRole")
        .filter((a) => a.startsWith("dynamodb:"))
        .sort(),
    ).toEqual(["dynamodb:BatchGetItem", "dynamodb:Query"]);
    expect(resourcesOf("PollRole", "dynamodb:Query")).toContain("/index/poll");
    expect(
      actionsOf("TickRole")
        .filter((a) => a.startsWith("dynamodb:"))
        .sort(),
    ).toEqual(["dynamodb:Query"]);
    expect(resourcesOf("TickRole", "dynamodb:Query")).toContain("/index/due");
    expect(resourcesOf("TickRole", "dynamodb:Query")).not.toContain("/index/poll");
    for (const role of ["CalendarHooksRole", "SyncWorkerRole", "TickRole"]) {
      expect(actionsOf(role), role).not.toContain("dynamodb:DeleteItem");
    }
    // The service events delete only their event records (Powertools idempotency, when the
    // work throws), never a user's data.
    const eventDeletes = roleStatements().filter(
      (s) =>
        s.role === "ServiceEventsRole" &&
        [s.statement.Action].flat().includes("dynamodb:DeleteItem"),
    );
    expect(eventDeletes.map((s) => s.statement.Condition)).toEqual([
      { "ForAllValues:StringLike": { "dynamodb:LeadingKeys": ["IDEMPOTENCY#*"] } },
    ]);
    const encrypting = ofType("AWS::IAM::Role")
      .map(([role]) => role)
      .filter((role) => actionsOf(role).includes("kms:Encrypt"));
    // Onboarding seals tokens (the admin API, the install's OAuth callback); every reconciler
    // may renew a rotating token and seal the new one.
    expect(encrypting.sort()).toEqual(
      [
        "AdminOooRole",
        "AdminUsersRole",
        "ServiceEventsRole",
        "SyncWorkerRole",
        "TransitionWorkerRole",
        "WebCalendarsRole",
        "WebRole",
        // The stack seals the app's client secret at deploy (infra/resources/app-secret.yml).
        "SealClientSecretRole",
      ].sort(),
    );
    expect(actionsOf("TickRole").some((a) => a.startsWith("kms:"))).toBe(false);
    expect(actionsOf("PollRole").some((a) => a.startsWith("kms:"))).toBe(false);
    // The /ooo command queues its reconcile: it neither opens tokens nor takes the budget.
    expect(actionsOf("OooCommandRole").some((a) => a.startsWith("kms:"))).toBe(false);
    expect(actionsOf("HealthRole")).toEqual(["logs:CreateLogStream", "logs:PutLogEvents"]);
  });

  it("gives each function the modules its grants serve, and grants what its modules call", async () => {
    for (const [name, entry] of Object.entries(functionEntries)) {
      // Prepare: the modules its factory names (functions/**), and what its role grants.
      const { modules = {} } = (await import(path.join(repoRoot, entry))) as {
        modules?: AppModules;
      };
      const grants = grantsOf(stack, roleOf(name));
      const grantsAction = (prefix: string) => grants.some((g) => g.action.startsWith(prefix));
      // Assess: SSM parameters are read through the parameters module, KMS through the vault,
      // and a function that may seal a renewed access token renews it with the OAuth client.
      expect(modules.parameters !== undefined, `${name}: parameters`).toBe(grantsAction("ssm:"));
      expect(modules.kms !== undefined, `${name}: kms`).toBe(grantsAction("kms:"));
      expect(modules.oauth !== undefined, `${name}: oauth`).toBe(
        grants.some((g) => g.action === "kms:Encrypt" && g.on === "access_token"),
      );
    }
  });

  it("gives every function its own role", () => {
    // Act
    const functions = productFunctions(resources);
    const roles = functions.map(([, f]) => JSON.stringify(f.Properties.Role));
    // Assess
    expect(functions).toHaveLength(Object.keys(functionEntries).length);
    expect(new Set(roles).size).toBe(functions.length);
    expect(resources.IamRoleLambdaExecution).toBeUndefined();
  });

  it("names a resource in every IAM statement, never '*'", () => {
    const statements = roleStatements();
    expect(statements.length).toBeGreaterThan(10);
    for (const { role, statement } of statements) {
      const resource = statement.Resource;
      expect(resource, role).toBeDefined();
      const list = Array.isArray(resource) ? resource : [resource];
      for (const item of list) expect(item, `${role} ${String(statement.Sid)}`).not.toBe("*");
      expect(JSON.stringify(statement.Action)).not.toMatch(/"\*"|:\*"/);
    }
  });

  it("runs every function on nodejs22.x with a retained log group", () => {
    for (const [, f] of ofType("AWS::Lambda::Function")) {
      expect(f.Properties.Runtime).toBe("nodejs22.x");
    }
    const groups = ofType("AWS::Logs::LogGroup").filter(([, g]) =>
      String(g.Properties.LogGroupName).startsWith("/aws/lambda/"),
    );
    // Each product function's, and the deploy-time sealing function's.
    expect(groups).toHaveLength(Object.keys(functionEntries).length + 1);
    for (const [, g] of groups) expect(g.Properties.RetentionInDays).toBeGreaterThan(0);
  });

  it("gives both work queues a dead-letter queue and reports batch item failures", () => {
    const queues = ofType("AWS::SQS::Queue").filter(([id]) => !id.includes("DeadLetter"));
    expect(queues.map(([id]) => id).sort()).toEqual(["SyncQueue", "TransitionQueue"]);
    for (const [, q] of queues) {
      const redrive = q.Properties.RedrivePolicy as {
        deadLetterTargetArn: unknown;
        maxReceiveCount: number;
      };
      expect(redrive.maxReceiveCount).toBeGreaterThan(0);
      expect(JSON.stringify(redrive.deadLetterTargetArn)).toMatch(/DeadLetterQueue/);
    }
    const mappings = ofType("AWS::Lambda::EventSourceMapping");
    expect(mappings).toHaveLength(2);
    for (const [, m] of mappings) {
      expect(m.Properties.FunctionResponseTypes).toEqual(["ReportBatchItemFailures"]);
    }
  });

  it("declares the table from its single definition: both indexes, TTL, PITR, deletion protection", async () => {
    const table = resources.StatusTable;
    expect(table?.Type).toBe("AWS::DynamoDB::Table");
    // As deployed with the default stage parameters (no index upgrade under way).
    const props = resolveConditions(table?.Properties ?? {}, stack?.conditions ?? {}) as Record<
      string,
      unknown
    >;
    const indexes = (props.GlobalSecondaryIndexes as Array<{ IndexName: string }>).map(
      (i) => i.IndexName,
    );
    expect(indexes).toEqual([DUE_INDEX, POLL_INDEX]);
    expect(props.TimeToLiveSpecification).toEqual({ AttributeName: TTL_ATTRIBUTE, Enabled: true });
    expect(props.PointInTimeRecoverySpecification).toEqual({ PointInTimeRecoveryEnabled: true });
    expect(props.DeletionProtectionEnabled).toBe(true);
    expect(props.TableName).toBe("statuspilot-test");
    const committed = await readFile(path.join(repoRoot, "infra/resources/table.json"), "utf8");
    expect(committed).toBe(renderTableJson());
  });

  it("creates a rotating KMS key for user tokens and hands it to the functions", () => {
    const keys = ofType("AWS::KMS::Key");
    expect(keys).toHaveLength(1);
    expect(keys[0]?.[1].Properties.EnableKeyRotation).toBe(true);
    const fn = resources.ServiceEventsLambdaFunction;
    const env = (fn?.Properties.Environment as { Variables: Record<string, unknown> } | undefined)
      ?.Variables;
    expect(env).toBeDefined();
    expect(env?.TOKEN_KMS_KEY_ID).toEqual({ Ref: "TokenKey" });
    expect(env?.SIGNING_SECRET_PARAM).toBe("/statuspilot/test/signing-secret");
    expect(env?.SIGNING_SECRET).toBeUndefined();
  });

  it("gives the web function its front-door settings and reads only its own two secrets", () => {
    // Prepare
    const env = (
      resources.WebLambdaFunction?.Properties.Environment as
        | { Variables: Record<string, unknown> }
        | undefined
    )?.Variables;
    const ssm = roleStatements()
      .filter((s) => s.role === "WebRole" && s.statement.Action === "ssm:GetParameter")
      .flatMap(({ statement }) => [statement.Resource].flat())
      .map((r) => JSON.stringify(r));
    // Assess: secrets by SSM name only, never in clear. Besides its own two, the web reads the
    // Google and Microsoft client secrets (a connect's code exchange) and the signing secret (the first push
    // channel's token derives from it).
    expect(env?.OAUTH_CLIENT_SECRET_PARAM).toBe("/statuspilot/test/oauth-client-secret");
    expect(env?.WEB_KEY_PARAM).toBe("/statuspilot/test/web-key");
    expect(env?.OAUTH_CLIENT_SECRET).toBeUndefined();
    expect(env?.WEB_KEY).toBeUndefined();
    expect(env?.OAUTH_CLIENT_ID).toBeDefined();
    expect(env?.PUBLIC_BASE_URL).toBeDefined();
    expect(ssm).toHaveLength(5);
    expect(ssm.join(" ")).toContain("/statuspilot/test/oauth-client-secret");
    expect(ssm.join(" ")).toContain("/statuspilot/test/web-key");
    expect(ssm.join(" ")).toContain("google-client-secret");
    expect(ssm.join(" ")).toContain("microsoft-client-secret");
    expect(ssm.join(" ")).toContain("signing-secret");
  });

  it("keeps the web key with the front door: the transition worker neither knows nor reads it", () => {
    // Prepare: the web key signs sessions and CSRF tokens; the Home tab's settings links are
    // stored grants, so the worker that publishes the Home tab needs no key (nor SSM at all).
    const env = (
      resources.TransitionWorkerLambdaFunction?.Properties.Environment as
        | { Variables: Record<string, unknown> }
        | undefined
    )?.Variables;
    const webKeyReaders = roleStatements()
      .filter(({ statement }) => JSON.stringify(statement.Resource ?? "").includes("web-key"))
      .map(({ role }) => role);
    const ssmReaders = roleStatements()
      .filter(({ statement }) =>
        [statement.Action].flat().some((a) => String(a).startsWith("ssm:")),
      )
      .map(({ role }) => role);
    // Assess
    expect(env).toBeDefined();
    expect(env?.WEB_KEY_PARAM).toBeUndefined();
    expect(env?.WEB_KEY).toBeUndefined();
    expect([...new Set(webKeyReaders)].sort()).toEqual(["WebCalendarsRole", "WebRole"]);
    expect(ssmReaders).not.toContain("TransitionWorkerRole");
  });

  it("schedules the tick every minute and the poll every five, on the five", () => {
    const rules = ofType("AWS::Events::Rule").map(([, r]) => r.Properties.ScheduleExpression);
    expect(rules.sort()).toEqual(["cron(0/5 * * * ? *)", "rate(1 minute)"]);
  });

  it("declares exactly the HTTP routes of functions/routes.ts, with IAM on the admin API", () => {
    const integrations = new Map(
      ofType("AWS::ApiGatewayV2::Integration").map(([id]) => [
        id,
        id.replace("HttpApiIntegration", ""),
      ]),
    );
    const declared = ofType("AWS::ApiGatewayV2::Route").map(([, r]) => {
      const target = JSON.stringify(r.Properties.Target);
      const integration = [...integrations.keys()].find((id) => target.includes(`"${id}"`)) ?? "";
      return {
        key: r.Properties.RouteKey as string,
        fn: (integrations.get(integration) ?? "").toLowerCase(),
        auth: r.Properties.AuthorizationType ?? "NONE",
      };
    });
    const expected = routes.map((r) => ({
      key: `${r.method} ${r.path}`,
      fn: r.function.toLowerCase(),
      auth: r.path.startsWith("/admin/") ? "AWS_IAM" : "NONE",
    }));
    const byKey = (a: { key: string }, b: { key: string }) => a.key.localeCompare(b.key);
    expect(declared.sort(byKey)).toEqual(expected.sort(byKey));
  });
});
