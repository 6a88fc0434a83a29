import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { DeployError } from "#lib/cli/deploy/errors";
import { childOsls } from "#lib/cli/deploy/osls";
import { awsError } from "../../support/fake-aws";
import { FRESH_TOKEN, T0, worldsOfEachTest } from "./support";

// Bad input, refusals and the doctor's and destroy's own paths: each a clear error naming what
// to fix, and nothing half-made that a rerun cannot finish.

const worlds = worldsOfEachTest();
const writesOf = (w: Awaited<ReturnType<typeof worlds.open>>) =>
  w.aws.actions().filter((a) => /Put|Update|Delete|Schedule/.test(a));

describe("statuspilot deploy refuses bad input before it changes anything", () => {
  it.each([
    [
      "a stage AWS would refuse",
      ["--stage", "prod_eu", "--region", "eu-west-1"],
      /letters, digits and hyphens/,
    ],
    [
      "a stage too long for the functions' names",
      ["--stage", `s${"x".repeat(40)}`, "--region", "eu-west-1"],
      /at most 33 characters/,
    ],
    ["no stage", ["--region", "eu-west-1"], /pass --stage/],
    [
      "a region AWS does not have",
      ["--stage", "prod", "--region", "eu-moon-1"],
      /not an AWS region/,
    ],
    [
      "--domain without its certificate",
      ["--stage", "prod", "--region", "eu-west-1", "--domain", "sp.example.com"],
      /--certificate-arn/,
    ],
    [
      "an unknown --rotate",
      ["--stage", "prod", "--region", "eu-west-1", "--rotate", "everything"],
      /name one of web-key/,
    ],
  ])("%s: exit 64 and no call", async (_what, args, message) => {
    // Prepare
    const w = await worlds.open();
    const { runDeploy } = await import("#lib/cli/deploy/commands");
    const io = {
      lines: [] as string[],
      out(t: string) {
        this.lines.push(t);
      },
      err(t: string) {
        this.lines.push(t);
      },
    };
    // Act
    const { commandDeps } = await import("../../support/deploy-harness");
    const code = await runDeploy(args, io, commandDeps({ aws: w.aws, osls: w.osls, env: w.env }));
    // Assess
    expect(code).toBe(64);
    expect(io.lines.join("\n")).toMatch(message);
    expect(io.lines.join("\n")).toMatch(/→ /);
    expect(w.aws.calls).toEqual([]);
    expect(w.osls.runs).toEqual([]);
  });

  it("without a configuration token: names STATUSPILOT_CONFIG_TOKEN, and writes nothing", async () => {
    const w = await worlds.open();
    w.env.STATUSPILOT_CONFIG_TOKEN = undefined;
    const run = await w.deploy();
    expect(run.code).toBe(1);
    expect(run.out).toContain("STATUSPILOT_CONFIG_TOKEN");
    expect(writesOf(w)).toEqual([]);
    expect(w.createdApps()).toEqual([]);
  });

  it.each([
    ["a user token, not a configuration token", "xoxp-member-0001", "not_allowed_token_type"],
    ["an unknown token", "xoxe-nobody-0000", "invalid_auth"],
  ])("with %s: the service's code, what to do, and nothing written", async (_what, token, code) => {
    const w = await worlds.open();
    w.env.STATUSPILOT_CONFIG_TOKEN = token;
    const run = await w.deploy();
    expect(run.code).toBe(1);
    expect(run.out).toContain(code);
    expect(run.out).toContain("make a new app configuration token");
    expect(writesOf(w)).toEqual([]);
    expect(run.out).not.toContain(token);
  });

  it("in a region without one of the stack's services: names it, and writes nothing", async () => {
    const w = await worlds.open();
    w.aws.missingTypes.add("AWS::ApiGatewayV2::Api");
    const run = await w.deploy();
    expect(run.code).toBe(1);
    expect(run.out).toContain("does not offer what the stack needs: AWS::ApiGatewayV2::Api");
    expect(writesOf(w)).toEqual([]);
    expect(w.createdApps()).toEqual([]);
  });

  it("when AWS refuses a write (AccessDenied): names the deployer policy; the rerun with the grant finishes", async () => {
    const w = await worlds.open();
    w.aws.intercept = (call) =>
      call.action === "ssm:PutParameter" && String(call.input.Name).endsWith("/web-key")
        ? awsError(
            "AccessDeniedException",
            "User: arn:aws:iam::123456789012:user/dev is not authorized to perform: ssm:PutParameter",
          )
        : undefined;
    const denied = await w.deploy();
    w.aws.intercept = () => undefined;
    const resumed = await w.deploy();
    expect(denied.code).toBe(1);
    expect(denied.out).toContain("AccessDeniedException");
    expect(denied.out).toContain("infra/deployer-policy.json");
    expect(resumed.code, resumed.out).toBe(0);
    expect(w.createdApps()).toHaveLength(1);
  });

  it("when the configuration token expires during the deploy: says so; a fresh token resumes it", async () => {
    // Prepare: the token expires an hour in; the stack's deploy takes two (the emulator's clock).
    const w = await worlds.open({
      mutate: (ws) => {
        const token = ws.tokens.find((t) => t.token === "xoxe-config-admin-0001");
        if (token) token.expires_at = T0 / 1000 + 3600;
      },
    });
    const run = w.osls.intercept;
    w.osls.intercept = (r) => {
      w.clock.set(T0 + 2 * 3600 * 1000);
      return run(r);
    };
    // Act
    const expired = await w.deploy();
    w.env.STATUSPILOT_CONFIG_TOKEN = FRESH_TOKEN;
    const resumed = await w.deploy();
    // Assess
    expect(expired.code).toBe(1);
    expect(expired.out).toContain("STATUSPILOT_CONFIG_TOKEN has expired");
    expect(expired.out).toContain("what was done is kept");
    expect(resumed.code, resumed.out).toBe(0);
    expect(w.createdApps()).toHaveLength(1);
    expect(w.osls.runs).toHaveLength(2);
  });

  it("when the AWS credentials expire halfway: says to refresh them; the rerun finishes", async () => {
    const w = await worlds.open();
    let describes = 0;
    w.aws.intercept = (call) =>
      call.action === "cloudformation:DescribeStacks" && ++describes === 2
        ? awsError("ExpiredTokenException", "The security token included in the request is expired")
        : undefined;
    const expired = await w.deploy();
    w.aws.intercept = () => undefined;
    const resumed = await w.deploy();
    expect(expired.code).toBe(1);
    expect(expired.out).toContain("the AWS credentials expired");
    expect(expired.out).toContain("aws sso login");
    expect(resumed.code, resumed.out).toBe(0);
  });
});

describe("statuspilot doctor", () => {
  it("fails a check with what to do: messages in a dead-letter queue, a missing alarm, a wrong signing secret", async () => {
    // Prepare
    const w = await worlds.open();
    expect((await w.deploy()).code).toBe(0);
    w.aws.queues.set(w.names.deadLetterQueues[1] ?? "", 3);
    w.aws.alarms.delete(`${w.names.alarmPrefix}tick-not-running`);
    w.aws.params.set(w.names.parameter("signingSecret"), {
      type: "SecureString",
      value: "not-the-apps-secret",
      version: 2,
    });
    // Act
    const run = await w.doctor();
    // Assess
    expect(run.code).toBe(1);
    expect(run.out).toMatch(
      /^FAIL dead-letter queues: messages waiting \(statuspilot-\w+-sync-dlq: 3\) → see the runbook/m,
    );
    expect(run.out).toMatch(
      /^FAIL alarms: missing: statuspilot-\w+-tick-not-running → run `statuspilot deploy/m,
    );
    expect(run.out).toMatch(/^FAIL events route: .* → the signing secret in/m);
    expect(run.out).toMatch(/^ok +install:/m);
    expect(run.out).not.toContain("not-the-apps-secret");
  });

  it("names a stage that is not deployed, and skips the manifest without a token", async () => {
    const w = await worlds.open();
    w.env.STATUSPILOT_CONFIG_TOKEN = undefined;
    const run = await w.doctor();
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/^FAIL parameters: .*missing/m);
    expect(run.out).toMatch(
      /^FAIL stack: statuspilot-\w+ is not deployed in eu-west-1 → run `statuspilot deploy/m,
    );
  });
});

describe("statuspilot destroy", () => {
  it("removes the stack and keeps the table and the key; --delete-data asks for the stage's name first", async () => {
    // Prepare
    const w = await worlds.open();
    expect((await w.deploy()).code).toBe(0);
    // Act: keep the data.
    const kept = await w.destroy();
    // Assess
    expect(kept.code).toBe(0);
    expect(w.aws.stack).toBeUndefined();
    expect(w.aws.table).toBeDefined();
    expect(kept.out).toContain(`Kept: the table ${w.names.table}`);
    // Act: deploy again under another key? No: delete the data, typing the wrong name first.
    const { runDestroy } = await import("#lib/cli/deploy/commands");
    const { bufferIo, commandDeps } = await import("../../support/deploy-harness");
    const io = bufferIo();
    const wrong = await runDestroy(
      ["--stage", w.stage, "--region", "eu-west-1", "--delete-data"],
      io,
      commandDeps({ aws: w.aws, osls: w.osls, env: w.env, answer: "prod" }),
    );
    // Assess
    expect(wrong).toBe(1);
    expect(io.all()).toContain("nothing was removed");
    expect(w.aws.table).toBeDefined();
    // Act: the right name; then once more, with everything already gone.
    const deleted = await w.destroy("--delete-data");
    const again = await w.destroy("--delete-data");
    // Assess
    expect(deleted.code, deleted.out).toBe(0);
    expect(w.aws.table).toBeUndefined();
    expect(again.code, again.out).toBe(0);
    expect(again.out).toContain("already");
  });
});

describe("the osls child process", () => {
  it("gets the stage, region and parameters on its command line, none of the STATUSPILOT_ variables, and its lines as progress", async () => {
    // Prepare: an executable standing in for osls that records what it got.
    const dir = await mkdtemp(path.join(tmpdir(), "fake-osls-"));
    const record = path.join(dir, "record.json");
    const exe = path.join(dir, "osls");
    await writeFile(
      exe,
      `#!${process.execPath}\nconst fs = require("node:fs");\nfs.writeFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv.slice(2), env: Object.keys(process.env) }));\nconsole.log("Deploying statuspilot to stage prod");\nconsole.error("✔ Service deployed");\nprocess.exit(process.argv.includes("--param=fail=yes") ? 3 : 0);\n`,
    );
    await chmod(exe, 0o755);
    process.env.STATUSPILOT_CONFIG_TOKEN = "xoxe-secret-in-the-parent";
    try {
      const lines: string[] = [];
      // Act
      await childOsls(exe).run(
        "deploy",
        { stage: "prod", region: "eu-west-1", params: { migrations: "none" } },
        (l) => lines.push(l),
      );
      const failure = await childOsls(exe)
        .run("remove", { stage: "prod", region: "eu-west-1", params: { fail: "yes" } }, () => {})
        .catch((e: unknown) => e);
      // Assess
      const got = JSON.parse(await readFile(record, "utf8")) as { argv: string[]; env: string[] };
      expect(lines).toEqual(["Deploying statuspilot to stage prod", "✔ Service deployed"]);
      expect(got.argv).toEqual([
        "remove",
        "--stage",
        "prod",
        "--region",
        "eu-west-1",
        "--param=fail=yes",
      ]);
      expect(got.env.filter((n) => n.startsWith("STATUSPILOT_"))).toEqual([]);
      expect(failure).toBeInstanceOf(DeployError);
      expect((failure as DeployError).message).toContain("osls remove exited with 3");
      expect((failure as DeployError).message).toContain("Service deployed");
    } finally {
      delete process.env.STATUSPILOT_CONFIG_TOKEN;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
