/**
 * Bundles every Lambda function with esbuild (tree-shaken, minified, source maps) into
 * dist/functions/<name>/index.mjs, and regenerates infra/resources/table.json from the table's
 * single definition. Run before `osls package` / `osls deploy`:  npx tsx infra/build.ts
 */
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { renderTableJson } from "./table-resource";

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** serverless.yml function name → handler module. */
export const functionEntries: Record<string, string> = {
  serviceEvents: "functions/http/events.ts",
  oooCommand: "functions/http/ooo-command.ts",
  calendarHooks: "functions/http/calendar.ts",
  adminOoo: "functions/http/admin.ts",
  health: "functions/http/health.ts",
  tick: "functions/schedule/tick.ts",
  poll: "functions/schedule/poll.ts",
  syncWorker: "functions/queue/sync.ts",
  transitionWorker: "functions/queue/transition.ts",
};

/** Regenerates infra/resources/table.json; a test fails when the committed file is stale. */
export async function writeTableResource(root = repoRoot): Promise<void> {
  await writeFile(path.join(root, "infra/resources/table.json"), renderTableJson());
}

export async function buildBundles(root = repoRoot): Promise<void> {
  await Promise.all(
    Object.entries(functionEntries).map(([name, entry]) =>
      build({
        entryPoints: [path.join(root, entry)],
        outfile: path.join(root, "dist/functions", name, "index.mjs"),
        bundle: true,
        platform: "node",
        target: "node20",
        format: "esm",
        minify: true,
        sourcemap: true,
        treeShaking: true,
        legalComments: "none",
        logLevel: "warning",
        // Some dependencies are CommonJS and call require(); give the ESM bundle one.
        banner: {
          js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
        },
      }),
    ),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await writeTableResource();
  await buildBundles();
}
