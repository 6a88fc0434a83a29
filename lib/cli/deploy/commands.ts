import { createInterface } from "node:readline/promises";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { systemClock } from "#lib/app/compose/system-clock";
import { KmsTokenVault } from "#lib/app/secrets/kms-vault";
import { describeSealMigration, migrateSealsInTable } from "#lib/app/secrets/sealed-items-scan";
import { silentLog } from "#lib/core/ports";
import { CLI_SPECS, helpText } from "../command-specs";
import type { CliIo } from "../io";
import { TOKEN_ENV } from "../manifest-push";
import { type AwsClients, awsClients, closeClients } from "./aws";
import { deploy } from "./deploy";
import { destroy } from "./destroy";
import { doctor } from "./doctor";
import { DeployError } from "./errors";
import { checkRegion, checkStage, stageNames } from "./names";
import { childOsls, type OslsRunner } from "./osls";
import { planLines } from "./plan";
import { type ServiceApp, serviceApp } from "./service-app";

const EXIT_USAGE = 64;
const EXIT_FAILED = 1;
const MANIFEST = "infra/manifest.yaml";

export const DEPLOY_USAGE = helpText("deploy", CLI_SPECS.deploy);
export const DOCTOR_USAGE = helpText("doctor", CLI_SPECS.doctor);
export const DESTROY_USAGE = helpText("destroy", CLI_SPECS.destroy);

/** What the commands are built from: AWS, osls and the network by default; tests inject theirs. */
export interface CommandDeps {
  aws(region: string): AwsClients;
  osls: OslsRunner;
  service(baseUrl: string, token: string | undefined): ServiceApp;
  fetch: typeof fetch;
  env: Record<string, string | undefined>;
  sleep(ms: number): Promise<void>;
  ask(question: string): Promise<string>;
  now(): number;
}

export const defaultDeps = (): CommandDeps => ({
  aws: awsClients,
  osls: childOsls(),
  service: (baseUrl, token) => serviceApp({ baseUrl, token }),
  fetch: globalThis.fetch,
  env: process.env,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ask: async (question) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  },
  now: () => systemClock.now(),
});

type Parsed = { values: Record<string, string | boolean | string[] | undefined> };

/** Parses, answering --help itself; undefined when the command already answered. */
function parse(
  args: string[],
  io: CliIo,
  usage: string,
  options: NonNullable<ParseArgsConfig["options"]>,
): Parsed | number {
  try {
    const parsed = parseArgs({
      args,
      options: { ...options, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    });
    if ((parsed.values as Record<string, unknown>).help === true) {
      io.out(usage);
      return 0;
    }
    return parsed as Parsed;
  } catch (error: unknown) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n${usage}`);
    return EXIT_USAGE;
  }
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

function reportError(error: unknown, io: CliIo): number {
  if (!(error instanceof DeployError)) throw error;
  io.err(`error: ${error.message}\n  → ${error.fix}`);
  return error.code === "bad_input" ? EXIT_USAGE : EXIT_FAILED;
}

/** Runs a command, a DeployError it throws answered with its message and exit code. */
async function reportingErrors(io: CliIo, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error: unknown) {
    return reportError(error, io);
  }
}

/** Runs a command with AWS clients for the region, closing them however it ends. */
async function withAws(
  deps: CommandDeps,
  region: string,
  run: (aws: AwsClients) => Promise<number>,
): Promise<number> {
  const aws = deps.aws(region);
  try {
    return await run(aws);
  } finally {
    closeClients(aws);
  }
}

/** The stage's resource names from --stage and --region (or AWS_REGION), both checked. */
const stageOf = (parsed: Parsed, deps: CommandDeps) =>
  stageNames(
    checkStage(str(parsed.values.stage)),
    checkRegion(str(parsed.values.region) ?? deps.env.AWS_REGION),
  );

export async function runDeploy(
  args: string[],
  io: CliIo,
  deps: CommandDeps = defaultDeps(),
): Promise<number> {
  const parsed = parse(args, io, DEPLOY_USAGE, CLI_SPECS.deploy.options);
  if (typeof parsed === "number") return parsed;
  const v = parsed.values;
  const options = {
    stage: str(v.stage),
    region: str(v.region) ?? deps.env.AWS_REGION,
    serviceUrl: str(v["service-url"]),
    appId: str(v["app-id"]),
    domain: str(v.domain),
    certificateArn: str(v["certificate-arn"]),
    rotate: Array.isArray(v.rotate) ? v.rotate : [],
    manifestFile: str(v.manifest) ?? MANIFEST,
    allowDowngrade: v["allow-downgrade"] === true,
  };
  return reportingErrors(io, async () => {
    if (v.plan === true) {
      for (const line of planLines(options)) io.out(line);
      return 0;
    }
    return withAws(deps, checkRegion(options.region), async (aws) => {
      const token = deps.env[TOKEN_ENV];
      const deployed = await deploy(options, {
        aws,
        osls: deps.osls,
        service: (baseUrl) => deps.service(baseUrl, token),
        io,
        env: deps.env,
        sleep: deps.sleep,
        migrateSeals: async (names) => {
          const report = await migrateSealsInTable({
            client: aws.dynamodb,
            tableName: names.table,
            vault: new KmsTokenVault(aws.kms, names.keyAlias),
            clock: systemClock,
            log: silentLog,
          });
          return { legacyLeft: report.legacyLeft, summary: describeSealMigration(report) };
        },
      });
      io.out("");
      const results = await doctor(deployed.names, {
        aws,
        service: (b) => deps.service(b, token),
        fetch: deps.fetch,
        io,
        now: deps.now,
        manifestFile: options.manifestFile,
      });
      if (results.some((r) => r.outcome === "fail")) {
        io.err("deployed, but the doctor found problems: see the FAIL lines above");
        return EXIT_FAILED;
      }
      return 0;
    });
  });
}

export async function runDoctor(
  args: string[],
  io: CliIo,
  deps: CommandDeps = defaultDeps(),
): Promise<number> {
  const parsed = parse(args, io, DOCTOR_USAGE, CLI_SPECS.doctor.options);
  if (typeof parsed === "number") return parsed;
  return reportingErrors(io, async () => {
    const names = stageOf(parsed, deps);
    return withAws(deps, names.region, async (aws) => {
      const token = deps.env[TOKEN_ENV];
      const results = await doctor(names, {
        aws,
        service: token ? (b) => deps.service(b, token) : undefined,
        fetch: deps.fetch,
        io,
        now: deps.now,
        manifestFile: str(parsed.values.manifest) ?? MANIFEST,
      });
      return results.some((r) => r.outcome === "fail") ? EXIT_FAILED : 0;
    });
  });
}

export async function runDestroy(
  args: string[],
  io: CliIo,
  deps: CommandDeps = defaultDeps(),
): Promise<number> {
  const parsed = parse(args, io, DESTROY_USAGE, CLI_SPECS.destroy.options);
  if (typeof parsed === "number") return parsed;
  return reportingErrors(io, async () => {
    const names = stageOf(parsed, deps);
    return withAws(deps, names.region, async (aws) => {
      await destroy(
        names,
        { deleteData: parsed.values["delete-data"] === true },
        { aws, osls: deps.osls, io, ask: deps.ask },
      );
      return 0;
    });
  });
}
