import { spawnSync } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { functionEntries } from "../infra/build";
import { formatTable, quantile, round } from "./support/stats";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

export interface BundleRow {
  fn: string;
  bytes: number;
  initMs: number;
  baselineBytes: number;
  baselineInitMs: number;
}

// The same banner infra/build.ts gives its bundles: some dependencies call require().
const banner = {
  js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
};

async function bundle(entry: string, outfile: string, baseline: boolean): Promise<number> {
  await build({
    entryPoints: [path.join(repoRoot, entry)],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    banner,
    logLevel: "silent",
    legalComments: "none",
    // Ours: exactly infra/build.ts's settings. Baseline: the same handler with every
    // @aws-sdk/* client pulled in whole (their full export surface), not minified.
    ...(baseline ? { minify: false, treeShaking: false } : { minify: true, treeShaking: true }),
  });
  return (await stat(outfile)).size;
}

/** Module init of `file` in a fresh Node process (import only, handler not called), median. */
function initMs(file: string, runs: number): number {
  const code = `const t=performance.now();await import(${JSON.stringify(pathToFileURL(file).href)});process.stdout.write(String(performance.now()-t));`;
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const out = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
      encoding: "utf8",
      // The handlers read their configuration lazily; nothing here needs AWS.
      env: { PATH: process.env.PATH ?? "", AWS_REGION: "us-east-1" },
    });
    const ms = Number(out.stdout);
    if (out.status !== 0 || !Number.isFinite(ms)) {
      throw new Error(`init of ${path.basename(file)} failed: ${out.stderr.split("\n")[0] ?? ""}`);
    }
    times.push(ms);
  }
  return quantile(times, 0.5);
}

/**
 * Every function's bundle as infra/build.ts makes it (esbuild, tree-shaken, minified), its size
 * and its cold module init in fresh Node processes; against a baseline of the same handler
 * bundled without tree-shaking or minification, so each @aws-sdk/* client it imports comes in
 * whole (every command of the client, not only those used).
 */
export async function runBundleBench(opts: { quick?: boolean }): Promise<{
  rows: BundleRow[];
  table: string;
}> {
  const runs = opts.quick ? 3 : 7;
  const names = opts.quick
    ? ["transitionWorker", "serviceEvents", "health"]
    : Object.keys(functionEntries);
  const dir = await mkdtemp(path.join(tmpdir(), "statuspilot-bundles-"));
  try {
    const rows: BundleRow[] = [];
    for (const fn of names) {
      const entry = functionEntries[fn];
      if (!entry) continue;
      const ours = path.join(dir, fn, "index.mjs");
      const base = path.join(dir, `${fn}-baseline`, "index.mjs");
      const bytes = await bundle(entry, ours, false);
      const baselineBytes = await bundle(entry, base, true);
      rows.push({
        fn,
        bytes,
        initMs: round(initMs(ours, runs)),
        baselineBytes,
        baselineInitMs: round(initMs(base, runs)),
      });
    }
    const kb = (b: number) => `${round(b / 1024)} KB`;
    const table = formatTable(
      `bundles: esbuild as infra/build.ts (tree-shaken, minified) vs the same handler unminified without tree-shaking (whole SDK clients); init = import in a fresh node, median of ${runs}`,
      ["function", "bundle", "init", "baseline bundle", "baseline init", "× smaller", "× faster"],
      rows.map((r) => [
        r.fn,
        kb(r.bytes),
        `${r.initMs} ms`,
        kb(r.baselineBytes),
        `${r.baselineInitMs} ms`,
        String(round(r.baselineBytes / r.bytes)),
        String(round(r.baselineInitMs / r.initMs)),
      ]),
    );
    return { rows, table };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
