import { execFile } from "node:child_process";
import { cp, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

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

/**
 * `osls package --stage test` on a fresh clone, with fake credentials and no network: osls alone
 * (its local build plugin) bundles and packages. About 15–20 s: call it once per test file.
 * `params` overrides stage parameters (`--param name=value`).
 */
export async function packageStack(
  options: { params?: Record<string, string> } = {},
): Promise<PackagedStack> {
  const cloneDir = await freshClone();
  const outDir = await mkdtemp(path.join(tmpdir(), "statuspilot-package-"));
  const remove = async () => {
    await rm(outDir, { recursive: true, force: true });
    await rm(cloneDir, { recursive: true, force: true });
  };
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
        ...Object.entries(options.params ?? {}).map(([name, value]) => `--param=${name}=${value}`),
      ],
      { cwd: cloneDir, env, timeout: 110_000 },
    );
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
  } catch (error) {
    await remove();
    throw error;
  }
}
