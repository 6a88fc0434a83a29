import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConditions } from "../../support/cfn-conditions";
import { type PackagedStack, packageStack } from "../../support/osls-package";

// The upgrade window's grant (infra/DEPLOY.md, "Upgrading sealed values") exists only while the
// stage parameter legacySealedValues is true: packaged with it false, no role may Decrypt under
// the old context {purpose: statuspilot-user-token}, or any context naming a purpose. With it on
// (the default), test/integration/infra/kms-grants.test.ts checks each role's statement.

interface Statement {
  Effect?: string;
  Action?: string | string[];
  Condition?: Record<string, Record<string, unknown>>;
}

let stack: PackagedStack | undefined;

describe("the packaged stack with legacySealedValues=false", () => {
  beforeAll(async () => {
    stack = await packageStack({ params: { legacySealedValues: "false" } });
  }, 120_000);
  afterAll(async () => {
    await stack?.remove();
  });

  it("grants no role a Decrypt under the old purpose-only context", () => {
    expect(stack?.conditions.LegacySealedValues).toEqual({ "Fn::Equals": ["false", "true"] });
    const roles = Object.entries(stack?.resources ?? {}).filter(
      ([, r]) => r.Type === "AWS::IAM::Role",
    );
    expect(roles.length).toBeGreaterThan(5);
    let decrypting = 0;
    for (const [role, r] of roles) {
      const statements = (
        resolveConditions(r.Properties.Policies ?? [], stack?.conditions ?? {}) as Array<{
          PolicyDocument: { Statement: Statement[] };
        }>
      ).flatMap((p) => p.PolicyDocument.Statement);
      for (const s of statements) {
        expect(JSON.stringify(s.Condition ?? {}), role).not.toContain("purpose");
        if ([s.Action].flat().includes("kms:Decrypt")) decrypting += 1;
      }
    }
    // The owners' own Decrypt grants are still there.
    expect(decrypting).toBeGreaterThanOrEqual(6);
  });
});
