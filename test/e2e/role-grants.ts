import { resolveConditions } from "../support/cfn-conditions";
import type { PackagedStack } from "../support/osls-package";
import type { AwsCall } from "./aws-action-recorder";

// What each function's role in the packaged stack grants, in the terms of the AWS calls the
// recorder notes (./aws-action-recorder.ts), for the tests that hold the calls against the roles.

export interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

/** The role of a function, as the packaged stack names it. */
export const roleOf = (functionName: string) =>
  `${functionName[0]?.toUpperCase()}${functionName.slice(1)}Role`;

/** The Allow statements of `role`'s policies, their conditions resolved. */
export const statementsOf = (stack: PackagedStack | undefined, role: string): Statement[] =>
  (
    resolveConditions(
      stack?.resources[role]?.Properties.Policies ?? [],
      stack?.conditions ?? {},
    ) as Array<{
      PolicyDocument: { Statement: Statement[] };
    }>
  )
    .flatMap((p) => p.PolicyDocument.Statement)
    .filter((s) => s.Effect === "Allow");

/** The local stack's queue of each queue resource. */
const QUEUES: Record<string, string> = {
  TransitionQueue: "statuspilot-local-transition",
  SyncQueue: "statuspilot-local-sync",
};

/** What one statement grants `action` on, in the recorder's terms; [] when it names no such action. */
export function grantedOn(s: Statement, action: string): string[] {
  if (![s.Action].flat().includes(action)) return [];
  if (action.startsWith("kms:")) {
    // The field of an owner's context; the purpose of the old one (values sealed before owners).
    const context = s.Condition?.StringEquals ?? {};
    return [
      context["kms:EncryptionContext:field"] ?? context["kms:EncryptionContext:purpose"] ?? [],
    ]
      .flat()
      .map(String);
  }
  const resource = JSON.stringify(s.Resource);
  if (action.startsWith("dynamodb:")) {
    const index = /\/index\/(\w+)/.exec(resource);
    return [index ? `index/${index[1]}` : "table"];
  }
  if (action === "sqs:SendMessage") {
    return Object.entries(QUEUES)
      .filter(([id]) => resource.includes(`"${id}"`))
      .map(([, name]) => name);
  }
  return ["*"];
}

/** Every (action, on) a role grants. */
export function grantsOf(
  stack: PackagedStack | undefined,
  role: string,
): Array<{ action: string; on: string }> {
  return statementsOf(stack, role).flatMap((s) =>
    [s.Action].flat().flatMap((action) => grantedOn(s, action).map((on) => ({ action, on }))),
  );
}

/** Whether the calling function's role grants the call. */
export const allowsCall = (stack: PackagedStack | undefined, call: AwsCall): boolean =>
  grantsOf(stack, roleOf(call.functionName)).some(
    (g) => g.action === call.action && (g.on === call.on || g.on === "*"),
  );

/** The calls the calling function's role does not grant, once each, as "Role action on target". */
export const deniedCalls = (
  stack: PackagedStack | undefined,
  calls: readonly AwsCall[],
): string[] => [
  ...new Set(
    calls
      .filter((c) => !allowsCall(stack, c))
      .map((c) => `${roleOf(c.functionName)} ${c.action} on ${c.on}`),
  ),
];
