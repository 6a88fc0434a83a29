import { readFileSync } from "node:fs";
import path from "node:path";
import { ACCOUNT, type AwsCallRecord, type FakeAws } from "./fake-aws";
import { repoRoot } from "./osls-package";

/**
 * IAM's evaluation of an identity policy, reduced to what the deployer policy uses: Allow
 * statements, `*` and `?` wildcards in actions and resources, and the condition operators
 * StringEquals, StringLike, ArnLike (…IfExists) and ForAnyValue:StringLike. A request is allowed
 * when one statement matches its action, one of its resources and every condition.
 */
export interface PolicyStatement {
  Sid?: string;
  Effect: string;
  Action: string | string[];
  Resource: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

export const deployerPolicy = (): { Statement: PolicyStatement[] } =>
  JSON.parse(readFileSync(path.join(repoRoot, "infra/deployer-policy.json"), "utf8")) as {
    Statement: PolicyStatement[];
  };

const glob = (pattern: string, value: string, caseless = false): boolean => {
  const re = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")}$`,
    caseless ? "i" : "",
  );
  return re.test(value);
};

export interface Request {
  action: string;
  resource: string;
  context?: Record<string, string | string[]>;
}

function conditionHolds(
  operator: string,
  key: string,
  wanted: string | string[],
  context: Record<string, string | string[]>,
): boolean {
  const values = [context[key] ?? []].flat();
  const patterns = [wanted].flat();
  const ifExists = operator.endsWith("IfExists");
  const op = operator.replace(/IfExists$/, "");
  if (values.length === 0) return ifExists;
  const match = (v: string) => patterns.some((p) => (op.endsWith("Equals") ? p === v : glob(p, v)));
  if (op.startsWith("ForAnyValue:")) return values.some(match);
  return values.every(match);
}

export function allows(
  policy: { Statement: PolicyStatement[] },
  request: Request,
): PolicyStatement | undefined {
  return policy.Statement.find(
    (s) =>
      s.Effect === "Allow" &&
      [s.Action].flat().some((a) => glob(a, request.action, true)) &&
      [s.Resource].flat().some((r) => glob(r, request.resource)) &&
      Object.entries(s.Condition ?? {}).every(([operator, keys]) =>
        Object.entries(keys).every(([key, wanted]) =>
          conditionHolds(operator, key, wanted, request.context ?? {}),
        ),
      ),
  );
}

/** The IAM requests one recorded SDK call makes: its action on each resource it names. */
export function requestsOf(call: AwsCallRecord, aws: FakeAws): Request[] {
  const { region } = aws;
  const i = call.input;
  const [service] = call.action.split(":");
  switch (service) {
    case "ssm": {
      const names = (i.Names as string[] | undefined) ?? [String(i.Name)];
      return names.map((n) => ({
        action: call.action,
        resource: `arn:aws:ssm:${region}:${ACCOUNT}:parameter${n}`,
      }));
    }
    case "cloudformation":
      return [
        {
          action: call.action,
          resource: i.StackName
            ? `arn:aws:cloudformation:${region}:${ACCOUNT}:stack/${String(i.StackName)}/id`
            : "*",
        },
      ];
    case "dynamodb":
      return [
        {
          action: call.action,
          resource: `arn:aws:dynamodb:${region}:${ACCOUNT}:table/${String(i.TableName)}`,
        },
      ];
    case "sqs": {
      const name = i.QueueName ? String(i.QueueName) : String(i.QueueUrl).split("/").pop();
      return [{ action: call.action, resource: `arn:aws:sqs:${region}:${ACCOUNT}:${name}` }];
    }
    case "kms": {
      // The key the call reaches, and its aliases (what kms:ResourceAliases holds).
      const id = String(i.KeyId ?? "");
      const entry = [...aws.keys.entries()].find(([alias, k]) => alias === id || k.arn === id);
      const arn = entry?.[1].arn ?? `arn:aws:kms:${region}:${ACCOUNT}:key/unknown`;
      // Named by its alias, the request carries that alias (as KMS resolves it at the call).
      if (id.startsWith("alias/")) {
        return [{ action: call.action, resource: arn, context: { "kms:ResourceAliases": [id] } }];
      }
      const aliases = [...aws.keys.entries()]
        .filter(([, k]) => k.arn === arn)
        .map(([alias]) => alias)
        .filter((a) => a.startsWith("alias/"));
      return [{ action: call.action, resource: arn, context: { "kms:ResourceAliases": aliases } }];
    }
    default:
      return [{ action: call.action, resource: "*" }];
  }
}
