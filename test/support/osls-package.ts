import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { inject } from "vitest";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const run = promisify(execFile);

export interface CfnResource {
  Type: string;
  Condition?: string;
  Properties: Record<string, unknown> & { [key: string]: unknown };
}

export interface PackagedStack {
  resources: Record<string, CfnResource>;
  conditions: Record<string, unknown>;
  outputs: Record<string, { Value: unknown }>;
  /** Where osls wrote the template and the function zips. */
  outDir: string;
  remove(): Promise<void>;
}

/**
 * The product's functions (serverless.yml's), by logical id: not the one the stack runs only at
 * deploy to seal the client secret (infra/resources/app-secret.yml).
 */
export const productFunctions = (resources: Record<string, CfnResource>) =>
  Object.entries(resources).filter(
    ([id, r]) => r.Type === "AWS::Lambda::Function" && id !== "SealClientSecretFunction",
  );

/** What a fresh clone has: the sources, no dist/ (node_modules linked, as `npm ci` would make). */
async function freshClone(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), "statuspilot-clone-"));
  for (const entry of [
    "functions",
    "lib",
    "infra",
    "serverless.yml",
    "package.json",
    "tsconfig.json",
  ]) {
    await cp(path.join(repoRoot, entry), path.join(dir, entry), { recursive: true });
  }
  await symlink(path.join(repoRoot, "node_modules"), path.join(dir, "node_modules"), "dir");
  return dir;
}

/** What osls wrote: the template and the function zips, in `outDir`. */
async function readPackage(outDir: string, remove: () => Promise<void>): Promise<PackagedStack> {
  const template = JSON.parse(
    await readFile(path.join(outDir, "cloudformation-template-update-stack.json"), "utf8"),
  ) as {
    Resources: Record<string, CfnResource>;
    Conditions?: Record<string, unknown>;
    Outputs?: Record<string, { Value: unknown }>;
  };
  return {
    resources: template.Resources,
    conditions: template.Conditions ?? {},
    outputs: template.Outputs ?? {},
    outDir,
    remove,
  };
}

/** `osls package --stage test` of a fresh clone into `outDir`, offline, with fake credentials. */
async function runOsls(outDir: string, params: Record<string, string>): Promise<void> {
  const cloneDir = await freshClone();
  const env = {
    ...process.env,
    AWS_ACCESS_KEY_ID: "fake",
    AWS_SECRET_ACCESS_KEY: "fake",
    AWS_REGION: "eu-west-1",
    AWS_SDK_LOAD_CONFIG: "0",
    SLS_TELEMETRY_DISABLED: "1",
    SLS_NOTIFICATIONS_MODE: "off",
  };
  try {
    await run(
      path.join(repoRoot, "node_modules/.bin/osls"),
      [
        "package",
        "--stage",
        "test",
        "--region",
        "eu-west-1",
        "--package",
        outDir,
        ...Object.entries(params).map(([name, value]) => `--param=${name}=${value}`),
      ],
      { cwd: cloneDir, env, timeout: 110_000 },
    );
  } finally {
    await rm(cloneDir, { recursive: true, force: true });
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The run's one package of `params`: the first file to ask makes it in the run's directory
 * (test/support/run-dir.ts), the others wait until it is done and read the same files. Packaging
 * takes 15–20 s of CPU, and the sources do not change during a run.
 */
async function sharedPackage(runDir: string, params: Record<string, string>): Promise<string> {
  const key = createHash("sha256").update(JSON.stringify(params)).digest("hex").slice(0, 16);
  const dir = path.join(runDir, `package-${key}`);
  const outDir = path.join(dir, "out");
  const done = path.join(dir, "done");
  const failed = path.join(dir, "failed");
  try {
    await mkdir(dir);
  } catch (error: unknown) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // Another file is packaging it: wait for its outcome (osls's own timeout bounds the wait).
    for (let waited = 0; waited < 150_000; waited += 100) {
      if (existsSync(done)) return outDir;
      if (existsSync(failed)) throw new Error(await readFile(failed, "utf8"));
      await sleep(100);
    }
    throw new Error(`the run's package of ${JSON.stringify(params)} never finished`);
  }
  try {
    await runOsls(outDir, params);
  } catch (error: unknown) {
    await writeFile(failed, error instanceof Error ? error.message : String(error));
    throw error;
  }
  await writeFile(done, "");
  return outDir;
}

/**
 * `osls package --stage test` on a fresh clone, with fake credentials and no network: osls alone
 * (its local build plugin) bundles and packages. Once per `params` in a run, for every file
 * (read only: `remove` leaves it to the run); without the run's directory, at each call.
 * `params` overrides stage parameters (`--param name=value`).
 */
export async function packageStack(
  options: { params?: Record<string, string> } = {},
): Promise<PackagedStack> {
  const params = options.params ?? {};
  const runDir = inject("runDir");
  if (runDir !== undefined) return readPackage(await sharedPackage(runDir, params), async () => {});
  const outDir = await mkdtemp(path.join(tmpdir(), "statuspilot-package-"));
  const remove = () => rm(outDir, { recursive: true, force: true });
  try {
    await runOsls(outDir, params);
    return await readPackage(outDir, remove);
  } catch (error) {
    await remove();
    throw error;
  }
}
