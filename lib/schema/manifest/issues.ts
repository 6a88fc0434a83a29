import type * as z from "zod";
import { describeType, type PathSegment, type Problem, toPointer } from "../problems";

function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    if (!Object.hasOwn(current, key)) return undefined;
    current = (current as Record<PathSegment, unknown>)[key];
  }
  return current;
}

function article(expected: string): string {
  if (expected === "int") return "an integer";
  if (expected === "record") return "an object";
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function memberName(path: readonly PathSegment[]): string {
  const last = path[path.length - 1];
  return last === undefined ? "manifest" : typeof last === "number" ? `item ${last}` : last;
}

/** Turns zod issues of `schema` for `value` (found at `base` in `doc`) into problems. */
export function check(schema: z.ZodType, value: unknown, base: PathSegment[]): Problem[] {
  const result = schema.safeParse(value);
  if (result.success) return [];
  const problems: Problem[] = [];
  for (const issue of result.error.issues) {
    const rel = issue.path.map((s) => (typeof s === "number" ? s : String(s)));
    const path = [...base, ...rel];
    const actual = valueAt(value, rel);
    const name = memberName(path);
    switch (issue.code) {
      case "unrecognized_keys":
        for (const key of issue.keys) {
          problems.push({ message: `unknown member ${key}`, pointer: toPointer([...path, key]) });
        }
        break;
      case "invalid_type":
        problems.push({
          message:
            actual === undefined
              ? `${name} is required`
              : `${name} must be ${article(issue.expected)}, not ${describeType(actual)}`,
          pointer: toPointer(path),
        });
        break;
      case "invalid_value":
        problems.push({
          message: `${name} must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`,
          pointer: toPointer(path),
        });
        break;
      case "invalid_union":
        problems.push({
          message: `${name} has an unsupported type ${describeType(actual)}`,
          pointer: toPointer(path),
        });
        break;
      default:
        problems.push({ message: `${name} ${issue.message}`, pointer: toPointer(path) });
    }
  }
  return problems;
}
