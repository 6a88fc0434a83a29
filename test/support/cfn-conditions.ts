/**
 * Resolves what CloudFormation resolves at deploy time from the template's Conditions: each
 * `Fn::If` takes its branch, and `Ref: AWS::NoValue` leaves its list or object. Conditions here
 * are `Fn::Equals` of two literals (stage parameters osls wrote in), the only kind the stack uses.
 */
export function resolveConditions(value: unknown, conditions: Record<string, unknown>): unknown {
  const holds = (name: string): boolean => {
    const condition = conditions[name] as { "Fn::Equals"?: [unknown, unknown] } | undefined;
    const equals = condition?.["Fn::Equals"];
    if (!equals) throw new Error(`condition ${name} is not an Fn::Equals of literals`);
    return JSON.stringify(equals[0]) === JSON.stringify(equals[1]);
  };
  const isNoValue = (v: unknown): boolean =>
    typeof v === "object" && v !== null && (v as { Ref?: unknown }).Ref === "AWS::NoValue";
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(walk).filter((x) => !isNoValue(x));
    if (typeof v !== "object" || v === null) return v;
    const branch = (v as { "Fn::If"?: [string, unknown, unknown] })["Fn::If"];
    if (branch) return walk(holds(branch[0]) ? branch[1] : branch[2]);
    return Object.fromEntries(
      Object.entries(v)
        .map(([k, x]) => [k, walk(x)] as const)
        .filter(([, x]) => !isNoValue(x)),
    );
  };
  return walk(value);
}
