import { describe, expect, it } from "vitest";
import { awsError } from "../../support/fake-aws";
import { type World, worldsOfEachTest } from "./support";

// Upgrades: a stage made by hand before this command (the manual path of infra/DEPLOY.md, with
// a table whose indexes project every attribute) is brought to today's in order, the stack
// records what ran, a stopped upgrade resumes, and an older release refuses a stage a newer one
// upgraded. FakeOsls applies CloudFormation's rule that an update creates or deletes at most one
// index and changes no index's projection, so a wrong order fails here as it would on AWS.

const worlds = worldsOfEachTest();

/** A stage as the manual path left it, for the workspace's app A0MAIN (of U0ADMIN). */
async function handMadeStage() {
  const w = await worlds.open();
  const app = w.emulator.snapshot().apps.find((a) => a.id === "A0MAIN");
  if (!app) throw new Error("no A0MAIN");
  const put = (name: string, type: string, value: string) =>
    w.aws.params.set(`/statuspilot/${w.stage}/${name}`, { type, value, version: 1 });
  put("service-base-url", "String", w.emulator.apiBase);
  put("app-id", "String", "A0MAIN");
  put("signing-secret", "SecureString", "conformance-signing-secret");
  put("oauth-client-id", "String", "A0MAIN.client");
  put("oauth-client-secret", "SecureString", "hand-copied-client-secret");
  put("web-key", "SecureString", "a-web-key-of-at-least-thirty-two-characters");
  put("public-base-url", "String", "https://old.example");
  put("oauth-client-secret-sealed", "String", "kms:AAAA");
  w.aws.stack = {
    status: "UPDATE_COMPLETE",
    outputs: { HttpApiUrl: "https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com" },
  };
  w.aws.table = {
    deletionProtection: true,
    indexes: [
      { IndexName: "due", ProjectionType: "ALL", IndexStatus: "ACTIVE" },
      { IndexName: "poll", ProjectionType: "ALL", IndexStatus: "ACTIVE" },
    ],
  };
  w.aws.addKey(w.names.keyAlias);
  return w;
}

const stepsOf = (w: World) =>
  w.osls.runs.map(
    (r) =>
      `${r.params.indexUpgrade} legacy=${r.params.legacySealedValues} record=${r.params.migrations}`,
  );

describe("statuspilot deploy on a stage from before", () => {
  it("steps the indexes one change per deploy, seals again under owners, closes the window, and records each upgrade", async () => {
    // Prepare
    const w = await handMadeStage();
    // Act
    const run = await w.redeploy();
    // Assess
    expect(run.code, run.out).toBe(0);
    expect(stepsOf(w)).toEqual([
      "omit-due legacy=true record=packed-items",
      "legacy-poll legacy=true record=packed-items",
      "omit-poll legacy=true record=packed-items",
      "none legacy=true record=index-projections,packed-items",
      "none legacy=false record=index-projections,owner-bound-seals,packed-items",
    ]);
    expect(w.aws.table?.indexes.map((i) => `${i.IndexName} ${i.ProjectionType}`).sort()).toEqual([
      "due INCLUDE",
      "poll INCLUDE",
    ]);
    expect(w.aws.actions()).toContain("dynamodb:Scan");
    expect(w.aws.stack?.outputs.StatuspilotMigrations).toBe(
      "index-projections,owner-bound-seals,packed-items",
    );
    // The hand-made app is kept, pointed at the stack; nothing was created.
    expect(w.createdApps()).toEqual([]);
    expect(w.serviceCalls).toContain("apps.manifest.update");
    // Act: once more: nothing left to upgrade.
    const again = await w.redeploy();
    expect(again.code, again.out).toBe(0);
    expect(stepsOf(w).slice(5)).toEqual([
      "none legacy=false record=index-projections,owner-bound-seals,packed-items",
    ]);
  });

  it("resumes an index upgrade stopped between two steps at the step the table needs", async () => {
    // Prepare: the second step's deploy fails (CloudFormation refused, credentials expired, …).
    const w = await handMadeStage();
    let deploys = 0;
    w.osls.intercept = () =>
      ++deploys === 2
        ? awsError("ExpiredTokenException", "The security token included in the request is expired")
        : undefined;
    // Act
    const stopped = await w.redeploy();
    w.osls.intercept = () => undefined;
    const resumed = await w.redeploy();
    // Assess
    expect(stopped.code).toBe(1);
    expect(stopped.out).toContain("run the same command again");
    expect(resumed.code, resumed.out).toBe(0);
    expect(w.osls.runs.map((r) => r.params.indexUpgrade)).toEqual([
      "omit-due",
      "legacy-poll",
      "legacy-poll",
      "omit-poll",
      "none",
      "none",
    ]);
  });

  it("stops on a failed seal migration with what to do, and the rerun resumes with it", async () => {
    // Prepare: the table's Scan is throttled past the SDK's retries once.
    const w = await handMadeStage();
    let scans = 0;
    w.aws.intercept = (call) =>
      call.action === "dynamodb:Scan" && ++scans === 1
        ? awsError("ThrottlingException", "Rate exceeded")
        : undefined;
    // Act
    const stopped = await w.redeploy();
    const resumed = await w.redeploy();
    // Assess: the window stays open (legacy=true) until the migration has run.
    expect(stopped.code).toBe(1);
    expect(stopped.out).toMatch(/throttl/i);
    expect(stopped.out).toContain("run the same command again");
    expect(w.osls.runs.at(-3)?.params.legacySealedValues).toBe("true");
    expect(resumed.code, resumed.out).toBe(0);
    expect(w.aws.stack?.outputs.StatuspilotMigrations).toBe(
      "index-projections,owner-bound-seals,packed-items",
    );
  });

  it("refuses to deploy an older release over a stage a newer one upgraded, unless --allow-downgrade", async () => {
    // Prepare
    const w = await handMadeStage();
    expect((await w.redeploy()).code).toBe(0);
    const stack = w.aws.stack;
    if (!stack) throw new Error("no stack");
    stack.outputs.StatuspilotMigrations =
      "index-projections,owner-bound-seals,packed-items,sharded-timelines";
    const runsBefore = w.osls.runs.length;
    const writesBefore = w.aws.actions().filter((a) => a === "ssm:PutParameter").length;
    // Act
    const refused = await w.redeploy();
    const forced = await w.redeploy("--allow-downgrade");
    // Assess
    expect(refused.code).toBe(1);
    expect(refused.out).toContain("sharded-timelines");
    expect(refused.out).toContain("roll forward");
    expect(w.osls.runs.length).toBe(runsBefore + 1);
    expect(w.aws.actions().filter((a) => a === "ssm:PutParameter").length).toBe(writesBefore);
    expect(forced.code, forced.out).toBe(0);
    // The newer release's record is kept, so it still knows what ran.
    expect(w.osls.runs.at(-1)?.params.migrations).toBe(
      "sharded-timelines,index-projections,owner-bound-seals,packed-items",
    );
  });
});
