import { loadAwsServiceSpec } from "@aws-cdk/aws-service-spec";
import type {
  PropertyType,
  Resource,
  SpecDatabase,
  TypeDefinition,
} from "@aws-cdk/service-spec-types";

/**
 * Checks a CloudFormation template against AWS's own published resource specification (the
 * `@aws-cdk/aws-service-spec` database, built from CloudFormation's registry schemas): what a
 * first real deploy would refuse before creating anything. Each problem names where it is, as
 * `Resources/<id>/Properties/<path>`.
 *
 * Checked: every resource type exists; every property name is one its type has; every required
 * property is present; every value has its property's type (CloudFormation's coercions
 * allowed: a number or boolean written as a string); every `Ref`, `Fn::GetAtt` (resource and
 * attribute), `Fn::Sub` variable, `DependsOn` and `Condition` names something the template (or
 * CloudFormation's pseudo parameters) has. Both branches of an `Fn::If` are checked.
 * A `Custom::` type is a custom resource: `ServiceToken` is required, the rest is its own.
 */

export interface Template {
  Resources: Record<
    string,
    {
      Type: string;
      Properties?: unknown;
      DependsOn?: unknown;
      Condition?: string;
      DeletionPolicy?: string;
      UpdateReplacePolicy?: string;
    }
  >;
  Conditions?: Record<string, unknown>;
  Outputs?: Record<string, { Value: unknown; Condition?: string }>;
  Parameters?: Record<string, unknown>;
}

const PSEUDO = new Set([
  "AWS::AccountId",
  "AWS::NoValue",
  "AWS::NotificationARNs",
  "AWS::Partition",
  "AWS::Region",
  "AWS::StackId",
  "AWS::StackName",
  "AWS::URLSuffix",
]);
const POLICIES = new Set(["Delete", "Retain", "RetainExceptOnCreate", "Snapshot"]);

let loaded: Promise<SpecDatabase> | undefined;
/** The specification, loaded once (about a second). */
export const serviceSpec = (): Promise<SpecDatabase> => {
  loaded ??= loadAwsServiceSpec();
  return loaded;
};

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === "object" && v !== null && !Array.isArray(v);
/** The one key of an intrinsic function object (`{"Ref": …}`, `{"Fn::If": …}`), if it is one. */
const intrinsicOf = (v: unknown): string | undefined => {
  if (!isObject(v)) return undefined;
  const keys = Object.keys(v);
  return keys.length === 1 && (keys[0] === "Ref" || keys[0]?.startsWith("Fn::"))
    ? keys[0]
    : undefined;
};

export async function validateTemplate(template: Template): Promise<string[]> {
  const db = await serviceSpec();
  const problems: string[] = [];
  const resources = template.Resources;
  const conditions = new Set(Object.keys(template.Conditions ?? {}));
  const resourceSpec = (type: string): Resource | undefined =>
    db.lookup("resource", "cloudFormationType", "equals", type)[0];

  /** Checks the targets of every intrinsic function inside `value` (Ref, GetAtt, Sub, If). */
  const checkRefs = (value: unknown, at: string): void => {
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) checkRefs(v, `${at}/${i}`);
      return;
    }
    if (!isObject(value)) return;
    const fn = intrinsicOf(value);
    const arg = fn ? value[fn] : undefined;
    if (fn === "Ref") {
      const name = String(arg);
      if (!resources[name] && !PSEUDO.has(name) && !template.Parameters?.[name])
        problems.push(`${at}: Ref to ${name}, which the template does not have`);
      return;
    }
    if (fn === "Fn::GetAtt") {
      const [id, ...path] = Array.isArray(arg) ? arg.map(String) : String(arg).split(".");
      checkGetAtt(id ?? "", path.join("."), at);
      return;
    }
    if (fn === "Fn::Sub") {
      const [text, vars] = Array.isArray(arg) ? [String(arg[0]), arg[1]] : [String(arg), undefined];
      const local = new Set(isObject(vars) ? Object.keys(vars) : []);
      for (const [, ref] of text.matchAll(/\$\{(?!!)([^}]+)\}/g)) {
        const [id = "", ...path] = (ref ?? "").split(".");
        if (local.has(ref ?? "")) continue;
        if (path.length > 0) checkGetAtt(id, path.join("."), at);
        else if (!resources[id] && !PSEUDO.has(id))
          problems.push(`${at}: Fn::Sub names \${${id}}, which the template does not have`);
      }
      if (isObject(vars)) checkRefs(vars, `${at}/Fn::Sub`);
      return;
    }
    if (fn === "Fn::If" && Array.isArray(arg)) {
      if (!conditions.has(String(arg[0])))
        problems.push(`${at}: Fn::If on an unknown condition ${String(arg[0])}`);
      checkRefs(arg.slice(1), `${at}/Fn::If`);
      return;
    }
    for (const [k, v] of Object.entries(value)) checkRefs(v, `${at}/${k}`);
  };

  const checkGetAtt = (id: string, attribute: string, at: string): void => {
    const target = resources[id];
    if (!target)
      return void problems.push(`${at}: Fn::GetAtt of ${id}, which the template does not have`);
    if (target.Type.startsWith("Custom::") || target.Type === "AWS::CloudFormation::CustomResource")
      return;
    const spec = resourceSpec(target.Type);
    if (spec && !(attribute in spec.attributes))
      problems.push(
        `${at}: ${target.Type} has no attribute ${attribute} (it has ${Object.keys(spec.attributes).join(", ")})`,
      );
  };

  /** Whether `value` can be of `type`; pushes each mismatch with its path. */
  const checkType = (value: unknown, type: PropertyType, at: string): void => {
    const fn = intrinsicOf(value);
    if (fn === "Fn::If") {
      const [, yes, no] = (value as Json)[fn] as unknown[];
      for (const branch of [yes, no]) {
        if (intrinsicOf(branch) === "Ref" && (branch as Json).Ref === "AWS::NoValue") continue;
        checkType(branch, type, at);
      }
      return;
    }
    // Any other function resolves at deploy time to a value CloudFormation checks then.
    if (fn) return;
    const wrong = (what: string) =>
      problems.push(`${at}: expected ${what}, got ${JSON.stringify(value)?.slice(0, 80)}`);
    switch (type.type) {
      case "string":
        if (typeof value !== "string") wrong("a string");
        else if (type.allowedValues && !type.allowedValues.includes(value))
          wrong(`one of ${type.allowedValues.join(", ")}`);
        return;
      case "number":
      case "integer": {
        const n = typeof value === "string" ? Number(value) : value;
        if (
          typeof n !== "number" ||
          Number.isNaN(n) ||
          (type.type === "integer" && !Number.isInteger(n))
        )
          wrong(`a ${type.type}`);
        return;
      }
      case "boolean":
        if (typeof value !== "boolean" && value !== "true" && value !== "false") wrong("a boolean");
        return;
      case "json":
        if (!isObject(value) && !Array.isArray(value) && typeof value !== "string") wrong("JSON");
        return;
      case "date-time":
        if (typeof value !== "string") wrong("a date-time string");
        return;
      case "null":
        return;
      case "tag":
        if (!isObject(value) || !("Key" in value) || !("Value" in value))
          wrong("a tag {Key, Value}");
        return;
      case "array":
        if (!Array.isArray(value)) {
          wrong("a list");
          return;
        }
        value.forEach((v, i) => {
          if (!(intrinsicOf(v) === "Ref" && (v as Json).Ref === "AWS::NoValue"))
            checkType(v, type.element, `${at}/${i}`);
        });
        return;
      case "map":
        if (!isObject(value)) {
          wrong("a map");
          return;
        }
        for (const [k, v] of Object.entries(value)) checkType(v, type.element, `${at}/${k}`);
        return;
      case "union": {
        const before = problems.length;
        for (const option of type.types) {
          const mark = problems.length;
          checkType(value, option, at);
          if (problems.length === mark) {
            problems.splice(before);
            return;
          }
        }
        // Keep only the first option's complaints: enough to locate the value.
        problems.splice(before + 1);
        return;
      }
      case "ref": {
        const def = db.get("typeDefinition", type.reference.$ref) as TypeDefinition;
        checkProperties(value, def.properties, at);
        return;
      }
    }
  };

  const checkProperties = (
    value: unknown,
    properties: Resource["properties"],
    at: string,
  ): void => {
    if (!isObject(value))
      return void problems.push(
        `${at}: expected an object, got ${JSON.stringify(value)?.slice(0, 80)}`,
      );
    for (const [name, property] of Object.entries(properties)) {
      if (property.required && value[name] === undefined)
        problems.push(`${at}: required property ${name} is missing`);
    }
    for (const [name, v] of Object.entries(value)) {
      const property = properties[name];
      if (!property) {
        problems.push(
          `${at}/${name}: no such property (known: ${Object.keys(properties).join(", ")})`,
        );
        continue;
      }
      checkType(v, property.type, `${at}/${name}`);
    }
  };

  for (const [id, resource] of Object.entries(resources)) {
    const at = `Resources/${id}`;
    const custom =
      resource.Type.startsWith("Custom::") ||
      resource.Type === "AWS::CloudFormation::CustomResource";
    const spec = resourceSpec(custom ? "AWS::CloudFormation::CustomResource" : resource.Type);
    if (!spec) {
      problems.push(`${at}: unknown resource type ${resource.Type}`);
      continue;
    }
    const properties = resource.Properties ?? {};
    if (custom) {
      if (!isObject(properties) || properties.ServiceToken === undefined)
        problems.push(`${at}: a custom resource needs ServiceToken`);
    } else checkProperties(properties, spec.properties, `${at}/Properties`);
    checkRefs(properties, `${at}/Properties`);
    for (const dep of [resource.DependsOn ?? []].flat()) {
      if (!resources[String(dep)])
        problems.push(`${at}/DependsOn: ${String(dep)} is not in the template`);
    }
    if (resource.Condition !== undefined && !conditions.has(resource.Condition))
      problems.push(`${at}/Condition: unknown condition ${resource.Condition}`);
    for (const policy of [resource.DeletionPolicy, resource.UpdateReplacePolicy]) {
      if (policy !== undefined && !POLICIES.has(policy))
        problems.push(`${at}: unknown policy ${policy}`);
    }
  }
  for (const [name, condition] of Object.entries(template.Conditions ?? {}))
    checkRefs(condition, `Conditions/${name}`);
  for (const [name, output] of Object.entries(template.Outputs ?? {})) {
    checkRefs(output.Value, `Outputs/${name}`);
    if (output.Condition !== undefined && !conditions.has(output.Condition))
      problems.push(`Outputs/${name}: unknown condition ${output.Condition}`);
  }
  return problems;
}
