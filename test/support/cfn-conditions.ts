/**
 * Resolves what CloudFormation resolves at deploy time from the template's Conditions: each
 * `Fn::If` takes its branch, and `Ref: AWS::NoValue` leaves its list or object. Conditions here
 * are `Fn::Equals` of two literals (stage parameters osls wrote in), or `Fn::Or`, `Fn::And` and
 * `Fn::Not` of those, the only kinds the stack uses.
 */
export function resolveConditions(value: unknown, conditions: Record<string, unknown>): unknown {
  const evaluate = (condition: unknown, name: string): boolean => {
    const c = condition as Record<string, unknown[] | undefined> | undefined;
    const [equals, or, and, not] = ["Fn::Equals", "Fn::Or", "Fn::And", "Fn::Not"].map(
      (k) => c?.[k],
    );
    if (equals) return JSON.stringify(equals[0]) === JSON.stringify(equals[1]);
    if (or) return or.some((x) => evaluate(x, name));
    if (and) return and.every((x) => evaluate(x, name));
    if (not) return !evaluate(not[0], name);
    throw new Error(`condition ${name} is not made of Fn::Equals of literals`);
  };
  const holds = (name: string): boolean => evaluate(conditions[name], name);
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
