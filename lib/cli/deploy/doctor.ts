import { randomBytes } from "node:crypto";
import { DescribeAlarmsCommand } from "@aws-sdk/client-cloudwatch";
import { DecryptCommand, EncryptCommand } from "@aws-sdk/client-kms";
import { GetQueueAttributesCommand, GetQueueUrlCommand } from "@aws-sdk/client-sqs";
import { GetParameterCommand } from "@aws-sdk/client-ssm";
import { signV0 } from "#lib/http/signature";
import type { CliIo } from "../io";
import type { AwsClients } from "./aws";
import { DeployError, fromAws } from "./errors";
import { FUNCTION_NAMES, PARAMETERS, type ParameterKey, type StageNames } from "./names";
import { readParameters } from "./parameters";
import { deployedManifest, readManifest, type ServiceApp, sameManifest } from "./service-app";
import { describeStack } from "./stack-state";

/** One check's outcome: `skip` when it could not be made (what it needs is named). */
export interface CheckResult {
  check: string;
  outcome: "ok" | "fail" | "skip";
  detail: string;
  /** What to do, when it failed or was skipped. */
  fix?: string;
}

export interface DoctorDeps {
  aws: AwsClients;
  /** The service, when a configuration token is at hand (the manifest check needs it). */
  service: ((baseUrl: string) => ServiceApp) | undefined;
  /** Reaches the deployment (the events route, /install). */
  fetch: typeof fetch;
  io: CliIo;
  now(): number;
  manifestFile: string;
}

/** The alarms the stack declares (a test holds this list to the packaged template). */
export function expectedAlarms(names: StageNames): string[] {
  const prefix = names.alarmPrefix;
  return [
    ...FUNCTION_NAMES.filter((fn) => fn !== "sealClientSecret").flatMap((fn) => [
      `${prefix}${fn}-errors`,
      `${prefix}${fn}-throttles`,
    ]),
    ...["transition-dlq-not-empty", "sync-dlq-not-empty", "transition-lateness"].map(
      (n) => prefix + n,
    ),
    ...["users-needing-reauth", "tick-not-running"].map((n) => prefix + n),
  ].sort();
}

const ok = (check: string, detail: string): CheckResult => ({ check, outcome: "ok", detail });
const fail = (check: string, detail: string, fix: string): CheckResult => ({
  check,
  outcome: "fail",
  detail,
  fix,
});

/**
 * `statuspilot doctor`: checks a deployment end to end, one line per check. Exit 0 when every
 * check passed; 1 when one failed (a skipped check does not fail the run).
 */
export async function doctor(names: StageNames, deps: DoctorDeps): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const report = (result: CheckResult) => {
    results.push(result);
    const mark = { ok: "ok  ", fail: "FAIL", skip: "skip" }[result.outcome];
    deps.io.out(`${mark} ${result.check}: ${result.detail}${result.fix ? ` → ${result.fix}` : ""}`);
  };
  const attempt = async (check: string, run: () => Promise<CheckResult>) => {
    try {
      report(await run());
    } catch (error: unknown) {
      const e = error instanceof DeployError ? error : fromAws(error, check, names.region);
      report(fail(check, e.message, e.fix));
    }
  };

  const params = await readParameters(deps.aws.ssm, names);
  await attempt("parameters", async () => {
    const wrong = (Object.keys(PARAMETERS) as ParameterKey[]).flatMap((key) => {
      const state = params[key];
      const want = PARAMETERS[key].type;
      if (!state) return [`${names.parameter(key)} is missing`];
      return state.type === want
        ? []
        : [`${names.parameter(key)} is a ${state.type}, not a ${want}`];
    });
    return wrong.length === 0
      ? ok("parameters", `all ${Object.keys(PARAMETERS).length} present, each of its type`)
      : fail(
          "parameters",
          wrong.join("; "),
          `run \`statuspilot deploy --stage ${names.stage} --region ${names.region}\` (it writes what is missing; a wrong type: delete that parameter first)`,
        );
  });

  const stack = await describeStack(deps.aws.cloudformation, names);
  const url = stack?.outputs.PublicBaseUrl;
  if (!stack || !url) {
    report(
      fail(
        "stack",
        `${names.stack} is not deployed in ${names.region}`,
        `run \`statuspilot deploy --stage ${names.stage} --region ${names.region}\``,
      ),
    );
    return results;
  }
  report(ok("stack", `${names.stack} is ${stack.status}, at ${url}`));

  const appId = params.appId?.value;
  const serviceUrl = params.serviceBaseUrl?.value;
  if (!deps.service || !appId || !serviceUrl) {
    report({
      check: "manifest",
      outcome: "skip",
      detail: "no app configuration token (or no app id) to read the app's manifest",
      fix: "set STATUSPILOT_CONFIG_TOKEN to check it",
    });
  } else {
    const service = deps.service(serviceUrl);
    await attempt("manifest", async () => {
      const wanted = deployedManifest(await readManifest(deps.manifestFile), url);
      return sameManifest(await service.exportManifest(appId), wanted)
        ? ok("manifest", `app ${appId}'s events, commands and redirect URL point at ${url}`)
        : fail(
            "manifest",
            `app ${appId}'s manifest is not infra/manifest.yaml pointed at ${url}`,
            `run \`statuspilot deploy --stage ${names.stage} --region ${names.region}\``,
          );
    });
  }

  await attempt("events route", () => checkEventsRoute(names, deps, url));
  await attempt("install", () => checkInstall(names, deps, url, params.oauthClientId?.value));
  await attempt("alarms", async () => {
    const found = new Set<string>();
    let token: string | undefined;
    do {
      const out = await deps.aws.cloudwatch.send(
        new DescribeAlarmsCommand({
          AlarmNamePrefix: names.alarmPrefix,
          ...(token ? { NextToken: token } : {}),
        }),
      );
      for (const a of out.MetricAlarms ?? []) if (a.AlarmName) found.add(a.AlarmName);
      token = out.NextToken;
    } while (token);
    const missing = expectedAlarms(names).filter((n) => !found.has(n));
    return missing.length === 0
      ? ok("alarms", `all ${expectedAlarms(names).length} exist`)
      : fail(
          "alarms",
          `missing: ${missing.join(", ")}`,
          `run \`statuspilot deploy --stage ${names.stage} --region ${names.region}\` (CloudFormation puts them back)`,
        );
  });
  await attempt("dead-letter queues", async () => {
    const waiting: string[] = [];
    for (const queue of names.deadLetterQueues) {
      const { QueueUrl } = await deps.aws.sqs.send(new GetQueueUrlCommand({ QueueName: queue }));
      const out = await deps.aws.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl,
          AttributeNames: ["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
        }),
      );
      const n =
        Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) +
        Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
      if (n > 0) waiting.push(`${queue}: ${n}`);
    }
    return waiting.length === 0
      ? ok("dead-letter queues", "both empty")
      : fail(
          "dead-letter queues",
          `messages waiting (${waiting.join(", ")})`,
          "see the runbook in infra/DEPLOY.md (transition-dlq-not-empty, sync-dlq-not-empty): fix the cause, then redrive them",
        );
  });
  await attempt("KMS key", async () => {
    const probe = randomBytes(16).toString("hex");
    const context = { statuspilot: "doctor" };
    const sealed = await deps.aws.kms.send(
      new EncryptCommand({
        KeyId: names.keyAlias,
        Plaintext: Buffer.from(probe),
        EncryptionContext: context,
      }),
    );
    const opened = await deps.aws.kms.send(
      new DecryptCommand({
        KeyId: names.keyAlias,
        CiphertextBlob: sealed.CiphertextBlob,
        EncryptionContext: context,
      }),
    );
    return Buffer.from(opened.Plaintext ?? new Uint8Array()).toString() === probe
      ? ok("KMS key", `${names.keyAlias} seals and opens a test value`)
      : fail(
          "KMS key",
          `${names.keyAlias} opened a test seal to something else`,
          "check the key in the KMS console (enabled, not pending deletion)",
        );
  });
  return results;
}

/** POST /service/events with a signed `url_verification`: the challenge comes back. */
async function checkEventsRoute(
  names: StageNames,
  deps: DoctorDeps,
  url: string,
): Promise<CheckResult> {
  const check = "events route";
  const out = await deps.aws.ssm.send(
    new GetParameterCommand({ Name: names.parameter("signingSecret"), WithDecryption: true }),
  );
  const secret = out.Parameter?.Value ?? "";
  const challenge = randomBytes(12).toString("hex");
  const body = JSON.stringify({ type: "url_verification", token: "doctor", challenge });
  const timestamp = Math.floor(deps.now() / 1000);
  const res = await deps.fetch(`${url}/service/events`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-svc-request-timestamp": String(timestamp),
      "x-svc-signature": signV0(secret, timestamp, body),
    },
    body,
  });
  const text = await res.text();
  return res.status === 200 && text.includes(challenge)
    ? ok(check, `${url}/service/events answers a signed url_verification`)
    : fail(
        check,
        `${url}/service/events answered ${res.status} without the challenge`,
        `the signing secret in ${names.parameter("signingSecret")} must be the app's (its settings page); after fixing it, wait 5 minutes or redeploy`,
      );
}

/** GET /install: a redirect to the service carrying this stage's client id and redirect URL. */
async function checkInstall(
  names: StageNames,
  deps: DoctorDeps,
  url: string,
  clientId: string | undefined,
): Promise<CheckResult> {
  const check = "install";
  const res = await deps.fetch(`${url}/install`, { redirect: "manual" });
  const location = res.headers.get("location");
  if (res.status !== 302 || !location) {
    return fail(
      check,
      `${url}/install answered ${res.status}, not a redirect`,
      "look at the web function's logs (a configuration error names what is missing)",
    );
  }
  const target = new URL(location);
  const redirect = `${url}/oauth/callback`;
  const wrong = [
    target.searchParams.get("client_id") === clientId
      ? ""
      : `client_id ${target.searchParams.get("client_id")} is not ${names.parameter("oauthClientId")}'s`,
    target.searchParams.get("redirect_uri") === redirect
      ? ""
      : `redirect_uri ${target.searchParams.get("redirect_uri")} is not ${redirect}`,
  ].filter((s) => s !== "");
  return wrong.length === 0
    ? ok(
        check,
        `${url}/install sends people to ${target.origin}${target.pathname} with this app's client id and ${redirect}`,
      )
    : fail(
        check,
        wrong.join("; "),
        `run \`statuspilot deploy --stage ${names.stage} --region ${names.region}\``,
      );
}
