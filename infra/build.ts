/**
 * Bundles every Lambda function with esbuild (tree-shaken, minified, source maps) into
 * dist/functions/<name>/index.mjs, and regenerates infra/resources/table.json from the table's
 * single definition. `npx osls package` / `deploy` run this through infra/plugins/build.mjs;
 * by hand: npx tsx infra/build.ts (prints each bundle's size).
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { renderTableJson } from "./table-resource";

export { renderTableJson };

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/**
 * serverless.yml function name → handler module. Each module's factory names the modules its
 * code paths load (lib/app/compose/modules.ts), so its bundle carries only those: no stub table.
 */
export const functionEntries: Record<string, string> = {
  serviceEvents: "functions/http/events.ts",
  serviceInteractive: "functions/http/interactive.ts",
  oooCommand: "functions/http/ooo-command.ts",
  statuspilotCommand: "functions/http/statuspilot-command.ts",
  calendarHooks: "functions/http/calendar.ts",
  adminOoo: "functions/http/admin.ts",
  adminUsers: "functions/http/admin-users.ts",
  health: "functions/http/health.ts",
  web: "functions/http/web.ts",
  webCalendars: "functions/http/web-calendars.ts",
  tick: "functions/schedule/tick.ts",
  poll: "functions/schedule/poll.ts",
  syncWorker: "functions/queue/sync.ts",
  transitionWorker: "functions/queue/transition.ts",
};

/** Regenerates infra/resources/table.json; a test fails when the committed file is stale. */
export async function writeTableResource(root = repoRoot): Promise<void> {
  await writeFile(path.join(root, "infra/resources/table.json"), renderTableJson());
}

export interface BundleReport {
  name: string;
  /** Size of index.mjs in bytes. */
  bytes: number;
  /** npm packages with code in the bundle, e.g. "ical.js", "@aws-sdk/client-kms". */
  packages: string[];
  /**
   * Each file with code in index.mjs and its bytes there, by path from the repository root
   * ("lib/schema/manifest.ts", "node_modules/yaml/dist/index.js").
   */
  inputs: Record<string, number>;
}

const packageOf = (input: string): string | undefined => {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input.replaceAll("\\", "/"));
  return m?.[1];
};

/** Bundles every function into `<outRoot>/<name>/index.mjs` and reports what each contains. */
export async function buildBundles(
  root = repoRoot,
  outRoot = path.join(root, "dist/functions"),
): Promise<BundleReport[]> {
  return Promise.all(
    Object.keys(functionEntries).map((name) =>
      buildBundle(name, path.join(outRoot, name, "index.mjs"), root),
    ),
  );
}

/** Bundles one function (a key of `functionEntries`) into `outfile`; reports what it contains. */
export async function buildBundle(
  name: string,
  outfile: string,
  root = repoRoot,
): Promise<BundleReport> {
  const entry = functionEntries[name];
  if (entry === undefined) throw new Error(`no function named ${name}`);
  const result = await build({
    entryPoints: [path.join(root, entry)],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    minify: true,
    sourcemap: true,
    treeShaking: true,
    legalComments: "none",
    logLevel: "warning",
    metafile: true,
    // Makes the metafile's paths relative to the repository root.
    absWorkingDir: root,
    // The AWS SDK's clients ship CommonJS under "main", which esbuild cannot shake: every
    // command of DynamoDB and SQS came along. Their ES modules ("module", sideEffects: false)
    // shake down to the commands used. Packages with an "exports" map are unaffected.
    mainFields: ["module", "main"],
    // The SDK's default credential chain, cut to the sources a Lambda uses (see the module).
    alias: { "@aws-sdk/credential-provider-node": path.join(root, "infra/lambda-credentials.ts") },
    // Some dependencies are CommonJS and call require(); give the ESM bundle one.
    banner: {
      js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
    },
  });
  const output = Object.entries(result.metafile.outputs).find(([file]) => file.endsWith(".mjs"));
  // Only what has code in the bundle: a module behind a loader its function never names is
  // parsed (metafile.inputs lists it) but shaken out.
  const packages = new Set<string>();
  const inputs: Record<string, number> = {};
  for (const [input, { bytesInOutput }] of Object.entries(output?.[1].inputs ?? {})) {
    if (bytesInOutput <= 0) continue;
    inputs[input] = bytesInOutput;
    const pkg = packageOf(input);
    if (pkg) packages.add(pkg);
  }
  return { name, bytes: output?.[1].bytes ?? 0, packages: [...packages].sort(), inputs };
}

/** One line per bundle: name, size in KiB, and the heavy packages it carries. */
export function formatReports(reports: BundleReport[]): string {
  const heavy = ["ical.js", "yaml", "windows-iana", "@aws-sdk/client-kms", "@aws-sdk/client-ssm"];
  return reports
    .map(
      (r) =>
        `${r.name.padEnd(18)} ${(r.bytes / 1024).toFixed(0).padStart(6)} KiB  ${r.packages
          .filter((p) => heavy.includes(p))
          .join(" ")}`,
    )
    .join("\n");
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await writeTableResource();
  console.log(formatReports(await buildBundles()));
}
