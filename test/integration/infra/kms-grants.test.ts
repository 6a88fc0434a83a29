import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveConditions } from "../../support/cfn-conditions";
import { type CfnResource, type PackagedStack, packageStack } from "../../support/osls-package";

// Issue 11 §2: the key policy keeps the account-root statement; each function's role may only
// Encrypt or Decrypt, only what its function seals or opens, and only under an owner's
// encryption context {team, user, field}. The table below restates what each function does
// with secrets (from its code paths), written by hand, never read from infra/resources.

/** Reconciling opens the user's tokens (and the app's client secret, to renew a rotating token) and seals a renewed pair. */
const RECONCILES = {
  encrypt: ["access_token", "refresh_token"],
  decrypt: ["access_token", "refresh_token", "oauth_client_secret"],
};
const EXPECTED: Record<string, { encrypt: string[]; decrypt: string[] }> = {
  ServiceEventsRole: RECONCILES,
  AdminOooRole: RECONCILES,
  // It also tells people (issue 26): it opens the team's bot token for the Home tab and DMs.
  TransitionWorkerRole: {
    encrypt: RECONCILES.encrypt,
    decrypt: [...RECONCILES.decrypt, "bot_token"],
  },
  // Onboarding seals tokens, calendar addresses, source and channel secrets; rebinding a
  // channel without a kind reads the binding (and its secret) back.
  AdminUsersRole: {
    encrypt: ["access_token", "refresh_token", "source_url", "source_secret", "channel_secret"],
    decrypt: [...RECONCILES.decrypt, "channel_secret"],
  },
  // Install seals the tokens (and the team's bot token), connecting a calendar seals the
  // account's refresh token (and disconnecting opens it to stop the push channel).
  WebRole: {
    encrypt: ["access_token", "refresh_token", "calendar_refresh_token", "bot_token"],
    decrypt: [...RECONCILES.decrypt, "calendar_refresh_token"],
  },
  // Adding a calendar seals its address; its first sync's reconcile is a reconciler's.
  WebCalendarsRole: { encrypt: [...RECONCILES.encrypt, "source_url"], decrypt: RECONCILES.decrypt },
  // The only reader of calendar addresses; it seals those stored in clear before sealing. It
  // opens a connected account's refresh token to read its calendar, and seals a rotated one.
  SyncWorkerRole: {
    encrypt: [...RECONCILES.encrypt, "source_url", "calendar_refresh_token"],
    decrypt: [...RECONCILES.decrypt, "source_url", "calendar_refresh_token"],
  },
  // A push is authenticated by its channel token; the lookup leaves the stored secret sealed.
  CalendarHooksRole: { encrypt: [], decrypt: [] },
  OooCommandRole: { encrypt: [], decrypt: [] },
  StatuspilotCommandRole: { encrypt: [], decrypt: [] },
  // A click stores a mode or takes Sync now's guard and queues the rest: it opens no secret.
  ServiceInteractiveRole: { encrypt: [], decrypt: [] },
  TickRole: { encrypt: [], decrypt: [] },
  PollRole: { encrypt: [], decrypt: [] },
  HealthRole: { encrypt: [], decrypt: [] },
  // The stack's own sealing of the app's client secret at deploy (infra/resources/app-secret.yml).
  SealClientSecretRole: { encrypt: ["oauth_client_secret"], decrypt: [] },
};

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

let stack: PackagedStack | undefined;
let resources: Record<string, CfnResource> = {};

/** The role's statements as deployed with the packaged stage parameters (conditions resolved). */
const statementsOf = (role: string): Statement[] =>
  (
    resolveConditions(
      resources[role]?.Properties.Policies ?? [],
      stack?.conditions ?? {},
    ) as Array<{
      PolicyDocument: { Statement: Statement[] };
    }>
  ).flatMap((p) => p.PolicyDocument.Statement);
const actionsOf = (s: Statement): string[] => [s.Action].flat();
/** The context of values sealed before owners were bound (the old vaults' one). */
const LEGACY_PURPOSE = "statuspilot-user-token";
const isLegacy = (s: Statement): boolean =>
  s.Condition?.StringEquals?.["kms:EncryptionContext:purpose"] !== undefined;
const kmsStatements = (role: string) =>
  statementsOf(role).filter((s) => actionsOf(s).some((a) => a.startsWith("kms:")) && !isLegacy(s));
const sorted = (xs: unknown): string[] => [xs].flat().map(String).sort();

describe("the packaged stack's KMS key policy and grants", () => {
  beforeAll(async () => {
    stack = await packageStack();
    resources = stack.resources;
  }, 120_000);
  afterAll(async () => {
    await stack?.remove();
  });

  it("keeps the account-root statement in the key policy", () => {
    const key = Object.values(resources).find((r) => r.Type === "AWS::KMS::Key");
    const policy = key?.Properties.KeyPolicy as { Statement: Array<Record<string, unknown>> };
    const root = policy.Statement.find((s) => JSON.stringify(s.Principal ?? {}).includes(":root"));
    expect(root).toMatchObject({ Effect: "Allow", Action: "kms:*", Resource: "*" });
  });

  it("lists a role for every function the table above names, and no other", () => {
    const roles = Object.entries(resources)
      .filter(([, r]) => r.Type === "AWS::IAM::Role")
      .map(([id]) => id)
      .sort();
    expect(roles).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(Object.entries(EXPECTED))(
    "%s may Encrypt or Decrypt only its fields, only under an owner's context",
    (role, expected) => {
      const statements = kmsStatements(role);
      // One action per statement, only Encrypt or Decrypt, on the stack's key.
      for (const s of statements) {
        expect(s.Effect).toBe("Allow");
        expect(actionsOf(s)).toHaveLength(1);
        expect(["kms:Encrypt", "kms:Decrypt"]).toContain(actionsOf(s)[0]);
        expect(s.Resource).toEqual({ "Fn::GetAtt": ["TokenKey", "Arn"] });
        // The context holds only team, user and field, team and user present, field listed.
        expect(
          sorted(s.Condition?.["ForAllValues:StringEquals"]?.["kms:EncryptionContextKeys"]),
        ).toEqual(["field", "team", "user"]);
        expect(s.Condition?.Null).toEqual({
          "kms:EncryptionContext:team": "false",
          "kms:EncryptionContext:user": "false",
        });
      }
      const fieldsFor = (action: string): string[] =>
        statements
          .filter((s) => actionsOf(s)[0] === action)
          .flatMap((s) => sorted(s.Condition?.StringEquals?.["kms:EncryptionContext:field"]))
          .sort();
      expect(fieldsFor("kms:Encrypt")).toEqual([...expected.encrypt].sort());
      expect(fieldsFor("kms:Decrypt")).toEqual([...expected.decrypt].sort());
    },
  );

  // The upgrade window (infra/DEPLOY.md, "Upgrading sealed values"): with the stage parameter
  // legacySealedValues on, as by default, each role that opens secrets may also Decrypt, and
  // only Decrypt, under the old context and nothing else; no other role may.
  it.each(Object.entries(EXPECTED))(
    "%s may open values sealed before owners were bound only if it opens secrets",
    (role, expected) => {
      expect(stack?.conditions.LegacySealedValues).toEqual({ "Fn::Equals": ["true", "true"] });
      const legacy = statementsOf(role).filter(isLegacy);
      if (expected.decrypt.length === 0) {
        expect(legacy).toEqual([]);
        return;
      }
      expect(legacy).toHaveLength(1);
      expect(legacy[0]).toMatchObject({
        Effect: "Allow",
        Action: "kms:Decrypt",
        Resource: { "Fn::GetAtt": ["TokenKey", "Arn"] },
      });
      expect(legacy[0]?.Condition).toEqual({
        "ForAllValues:StringEquals": { "kms:EncryptionContextKeys": ["purpose"] },
        StringEquals: { "kms:EncryptionContext:purpose": LEGACY_PURPOSE },
      });
    },
  );
});
