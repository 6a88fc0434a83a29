import { describe, expect, it } from "vitest";
import { CookieJar, visit } from "../../integration/web/support";
import { awsError } from "../../support/fake-aws";
import { allows, deployerPolicy, requestsOf } from "../../support/iam-policy";
import { secretsOf, type World, worldsOfEachTest } from "./support";

// `statuspilot deploy` end to end: the service side for real (the emulator's
// apps.manifest.create/export/update and OAuth install), AWS through the real SDK clients
// stubbed at the client (test/support/fake-aws.ts), osls at its process boundary (FakeOsls),
// and the deployed stack's real handlers configured from what the deploy stored.

const worlds = worldsOfEachTest();
const open = worlds.open;

/** /install at the deployed stack → the service's consent as `user` → the callback → /settings. */
async function installAs(w: World, user: string) {
  const stack = w.stack();
  if (!stack) throw new Error("no deployed stack");
  const jar = new CookieJar();
  const go = (url: string) => {
    const local = stack.fetch(url, { redirect: "manual", headers: { cookie: jar.header() } });
    return local.then((res) => {
      jar.take(res);
      return res;
    });
  };
  const install = await go(`${stack.publicUrl}/install`);
  const authorize = new URL(install.headers.get("location") ?? "");
  authorize.searchParams.set("as", user);
  const consent = await visit(jar, authorize.href);
  const callback = await go(consent.headers.get("location") ?? "");
  const settings = await go(`${stack.publicUrl}/settings`);
  return { install, authorize, callback, settings, html: await settings.text() };
}

describe("statuspilot deploy", () => {
  it("takes an account with nothing in it to an install link, and a person installs through it", async () => {
    // Prepare
    const w = await open();
    // Act
    const first = await w.deploy();
    // Assess: one app made at the service, its manifest pointed at the stack's own address.
    expect(first.code, first.out).toBe(0);
    const url = w.aws.stack?.outputs.PublicBaseUrl ?? "";
    expect(url).toMatch(/^https:\/\/\w+\.execute-api\.eu-west-1\.amazonaws\.com$/);
    expect(first.out).toContain(`Install link: ${url}/install`);
    const [app, ...others] = w.createdApps();
    expect(others).toEqual([]);
    const manifest = w.emulator.state().apps.find((a) => a.id === app?.id)?.manifest as {
      settings: { event_subscriptions: { request_url: string } };
      features: { slash_commands: Array<{ url: string }> };
      oauth_config: { redirect_urls: string[] };
    };
    expect(manifest.settings.event_subscriptions.request_url).toBe(`${url}/service/events`);
    expect(manifest.features.slash_commands.map((c) => c.url)).toEqual([
      `${url}/service/commands/ooo`,
      `${url}/service/commands/statuspilot`,
    ]);
    expect(manifest.oauth_config.redirect_urls).toEqual([`${url}/oauth/callback`]);
    // Every parameter the stack needs, of its type; the credentials are the app's.
    const param = (name: string) => w.aws.params.get(`/statuspilot/${w.stage}/${name}`);
    expect(param("app-id")).toMatchObject({ type: "String", value: app?.id });
    expect(param("oauth-client-id")).toMatchObject({ type: "String", value: app?.client_id });
    expect(param("oauth-client-secret")).toMatchObject({
      type: "SecureString",
      value: app?.client_secret,
    });
    expect(param("signing-secret")).toMatchObject({
      type: "SecureString",
      value: app?.signing_secret,
    });
    expect(param("web-key")?.type).toBe("SecureString");
    expect(param("service-base-url")).toMatchObject({ type: "String", value: w.emulator.apiBase });
    // One osls deploy, recording every upgrade as done (a new stage has nothing to upgrade).
    expect(w.osls.runs.map((r) => r.argv.join(" "))).toEqual([
      `deploy --stage ${w.stage} --region eu-west-1 --param=clientSecretVersion=1 --param=legacySealedValues=false --param=migrations=index-projections,owner-bound-seals,packed-items --param=indexUpgrade=none`,
    ]);
    // The doctor ran after it, every check passing.
    expect(first.out).not.toMatch(/^FAIL/m);
    for (const check of [
      "parameters",
      "stack",
      "manifest",
      "events route",
      "install",
      "alarms",
      "dead-letter queues",
      "KMS key",
    ]) {
      expect(first.out).toMatch(new RegExp(`^ok +${check}:`, "m"));
    }
    // Act: a person installs through the link.
    const installed = await installAs(w, "U0MEMBER");
    // Assess: the service's consent carried the app's client id and the stack's callback.
    expect(installed.authorize.searchParams.get("client_id")).toBe(app?.client_id);
    expect(installed.authorize.searchParams.get("redirect_uri")).toBe(`${url}/oauth/callback`);
    expect(installed.callback.status).toBe(302);
    expect(installed.callback.headers.get("location")).toBe("/settings");
    expect(installed.settings.status).toBe(200);
    expect(installed.html).toContain("Disconnect");
  });

  it("changes nothing when run again: no parameter written, no app made or updated, the same osls deploy", async () => {
    // Prepare
    const w = await open();
    expect((await w.deploy()).code).toBe(0);
    const callsBefore = w.aws.calls.length;
    const serviceBefore = w.serviceCalls.length;
    // Act
    const again = await w.redeploy();
    // Assess
    expect(again.code, again.out).toBe(0);
    const writes = w.aws.calls
      .slice(callsBefore)
      .map((c) => c.action)
      .filter((a) => !/:(Get|Describe|List|Decrypt|Encrypt)/.test(a));
    expect(writes).toEqual([]);
    expect(w.serviceCalls.slice(serviceBefore)).not.toContain("apps.manifest.create");
    expect(w.serviceCalls.slice(serviceBefore)).not.toContain("apps.manifest.update");
    expect(w.osls.runs).toHaveLength(2);
    expect(w.osls.runs[1]?.argv).toEqual(w.osls.runs[0]?.argv);
    expect(w.createdApps()).toHaveLength(1);
  });

  it("--plan prints every step and makes no call", async () => {
    // Prepare
    const w = await open();
    // Act
    const plan = await w.deploy("--plan");
    // Assess
    expect(plan.code).toBe(0);
    expect(w.aws.calls).toEqual([]);
    expect(w.serviceCalls).toEqual([]);
    expect(w.osls.runs).toEqual([]);
    for (const call of [
      "cloudformation:DescribeStacks",
      "ssm:GetParameters",
      "apps.manifest.create",
      "ssm:PutParameter",
      "osls deploy",
      "apps.manifest.update",
      "dynamodb:DescribeTable",
    ]) {
      expect(plan.out).toContain(call);
    }
  });

  it("calls AWS only for what infra/deployer-policy.json allows, in deploy, doctor and destroy", async () => {
    // Prepare
    const w = await open();
    const policy = deployerPolicy();
    // Act
    expect((await w.deploy()).code).toBe(0);
    expect((await w.doctor()).code).toBe(0);
    expect((await w.destroy("--delete-data")).code).toBe(0);
    // Assess
    const requests = w.aws.commandCalls().flatMap((call) => requestsOf(call, w.aws));
    const denied = requests
      .filter((r) => !allows(policy, r))
      .map((r) => `${r.action} ${r.resource}`);
    expect(requests.length).toBeGreaterThan(20);
    expect(denied).toEqual([]);
    expect(new Set(requests.map((r) => r.action))).toEqual(
      new Set([
        "cloudformation:DescribeStacks",
        "cloudformation:DescribeType",
        "ssm:GetParameters",
        "ssm:PutParameter",
        "ssm:GetParameter",
        "cloudwatch:DescribeAlarms",
        "sqs:GetQueueUrl",
        "sqs:GetQueueAttributes",
        "kms:Encrypt",
        "kms:Decrypt",
        "kms:DescribeKey",
        "kms:ScheduleKeyDeletion",
        "dynamodb:DescribeTable",
        "dynamodb:UpdateTable",
        "dynamodb:DeleteTable",
      ]),
    );
  });

  it("prints no secret: not the token, the app's secrets, nor the web key; osls gets none either", async () => {
    // Prepare
    const w = await open();
    // Act
    const outputs = [
      (await w.deploy()).out,
      (await w.redeploy("--rotate", "web-key")).out,
      (await w.doctor()).out,
    ];
    // Assess
    const secrets = secretsOf(w);
    expect(secrets.length).toBeGreaterThanOrEqual(6);
    const shown = [...outputs, ...w.osls.runs.map((r) => r.argv.join(" "))].join("\n");
    for (const secret of secrets) expect(shown).not.toContain(secret);
  });
});

describe("statuspilot deploy stopped part way", () => {
  it("resumes from a stop at any call, and ends as an uninterrupted deploy does, with one app", async () => {
    // Prepare: count the boundaries of an uninterrupted first deploy (AWS calls, service calls, osls runs).
    const reference = await open();
    expect((await reference.deploy()).code).toBe(0);
    const boundaries =
      reference.aws.calls.length + reference.serviceCalls.length + reference.osls.runs.length;
    expect(boundaries).toBeGreaterThan(20);
    let adopted = 0;
    for (let stopAt = 1; stopAt <= boundaries; stopAt++) {
      const w = await open();
      let seen = 0;
      const stop = () =>
        ++seen === stopAt ? awsError("RequestAbortedError", "the deploy was stopped") : undefined;
      w.aws.intercept = stop;
      w.interceptService(stop);
      w.osls.intercept = stop;
      // Act: the stopped run, then the operator runs it again as it says.
      const stopped = await w.deploy();
      w.aws.intercept = () => undefined;
      w.interceptService(() => undefined);
      w.osls.intercept = () => undefined;
      const adopt = /--app-id (A\w+)/.exec(stopped.out)?.[1];
      if (adopt) {
        adopted += 1;
        const app = w.createdApps().find((a) => a.id === adopt);
        Object.assign(w.env, {
          STATUSPILOT_CLIENT_ID: app?.client_id,
          STATUSPILOT_CLIENT_SECRET: app?.client_secret,
          STATUSPILOT_SIGNING_SECRET: app?.signing_secret,
        });
      }
      const resumed = await w.deploy(...(adopt ? ["--app-id", adopt] : []));
      // Assess
      expect(stopped.code, `stop at ${stopAt}`).not.toBe(0);
      expect(stopped.out, `stop at ${stopAt}`).toMatch(/→ .+/);
      expect(resumed.code, `stop at ${stopAt}: ${resumed.out}`).toBe(0);
      expect(w.createdApps(), `stop at ${stopAt}`).toHaveLength(1);
      expect(new Set([...w.aws.params.keys()]), `stop at ${stopAt}`).toEqual(
        new Set([...reference.aws.params.keys()].map((k) => k.replace(reference.stage, w.stage))),
      );
      expect(w.aws.stack?.outputs.StatuspilotMigrations).toBe(
        "index-projections,owner-bound-seals,packed-items",
      );
      await worlds.close(w);
    }
    // The stops between apps.manifest.create and the app's last credential stored: the output
    // named the app, and the rerun adopted it instead of making a second one.
    expect(adopted).toBeGreaterThanOrEqual(1);
  }, 240_000);
});
