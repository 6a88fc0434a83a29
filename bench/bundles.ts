import { spawnSync } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { buildBundle, functionEntries, repoRoot } from "#infra/build";
import { formatTable, quantile, round } from "./support/stats";

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

/** The baseline: the same handler, unminified, without tree-shaking. */
async function bundleBaseline(entry: string, outfile: string): Promise<number> {
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
    minify: false,
    treeShaking: false,
  });
  return (await stat(outfile)).size;
}

/** Module init of `file` in a fresh Node process (import only, handler not called), in ms. */
function initOnce(file: string): number {
  const code = `const t=performance.now();await import(${JSON.stringify(pathToFileURL(file).href)});process.stdout.write(String(performance.now()-t));`;
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", code], {
    encoding: "utf8",
    // The handlers read their configuration lazily; nothing here needs AWS.
    env: { PATH: process.env.PATH ?? "", AWS_REGION: "us-east-1" },
  });
  const ms = Number(out.stdout);
  if (out.status !== 0 || !Number.isFinite(ms)) {
    throw new Error(`init of ${path.basename(file)} failed: ${out.stderr.split("\n")[0] ?? ""}`);
  }
  return ms;
}

/**
 * Median module init of each file over `runs` rounds. The files take turns within a round, so
 * a machine that slows down (other work on it) slows every one of them alike.
 */
function initMedians(files: string[], runs: number): number[] {
  const times = files.map((): number[] => []);
  for (let i = 0; i < runs; i++) {
    for (const [j, file] of files.entries()) times[j]?.push(initOnce(file));
  }
  return times.map((t) => quantile(t, 0.5));
}

/**
 * Issue 12's figures for the transition worker, measured by this bench before the fix (the
 * service client carried yaml and the manifest schema, zod came whole, the AWS SDK as CommonJS),
 * and its targets. Init times are of the machine that measured them.
 */
export const TRANSITION_WORKER_ISSUE_12 = {
  beforeBytes: 1310 * 1024,
  beforeInitMs: 98,
  targetBytes: 800 * 1024,
  targetInitMs: 75,
} as const;

/**
 * Each measured function's bundle exactly as infra/build.ts makes it (its `buildBundle`: esbuild,
 * tree-shaken, minified, only the modules its factory names), its size and
 * its cold module init in fresh Node processes; against a baseline of the same handler bundled
 * without tree-shaking or minification, so every @aws-sdk/* client and library it can reach
 * comes in whole.
 */
export async function runBundleBench(opts: { quick?: boolean }): Promise<{
  rows: BundleRow[];
  table: string;
}> {
  const runs = opts.quick ? 5 : 15;
  const names = opts.quick ? ["transitionWorker", "health"] : Object.keys(functionEntries);
  const dir = await mkdtemp(path.join(tmpdir(), "statuspilot-bundles-"));
  try {
    // Only the functions measured (--quick measures two of them), each as buildBundles makes it.
    const built = await Promise.all(
      names.map((fn) => buildBundle(fn, path.join(dir, fn, "index.mjs"), repoRoot)),
    );
    const ours = new Map(built.map((r) => [r.name, r.bytes]));
    const rows: BundleRow[] = [];
    for (const fn of names) {
      const entry = functionEntries[fn];
      const bytes = ours.get(fn);
      if (!entry || bytes === undefined) continue;
      const base = path.join(dir, `${fn}-baseline`, "index.mjs");
      const baselineBytes = await bundleBaseline(entry, base);
      const [init = Number.NaN, baselineInit = Number.NaN] = initMedians(
        [path.join(dir, fn, "index.mjs"), base],
        runs,
      );
      rows.push({
        fn,
        bytes,
        initMs: round(init),
        baselineBytes,
        baselineInitMs: round(baselineInit),
      });
    }
    const kib = (b: number) => `${round(b / 1024, 0)} KiB`;
    const issue = TRANSITION_WORKER_ISSUE_12;
    const transition = rows.find((r) => r.fn === "transitionWorker");
    const issueLine =
      transition === undefined
        ? ""
        : `\ntransitionWorker against issue 12: bundle ${kib(transition.bytes)} (before ${kib(issue.beforeBytes)}, target ≤ ${kib(issue.targetBytes)}: ${transition.bytes <= issue.targetBytes ? "met" : "NOT met"}), init ${round(transition.initMs, 0)} ms (before about ${issue.beforeInitMs} ms, target ≤ ${issue.targetInitMs} ms, on the machine that measured them)`;
    const table = formatTable(
      `bundles: infra/build.ts's buildBundles (tree-shaken, minified, only the modules each factory names) vs the same handler unminified without tree-shaking; init = import in a fresh node, median of ${runs}`,
      ["function", "bundle", "init", "baseline bundle", "baseline init", "× smaller", "× faster"],
      rows.map((r) => [
        r.fn,
        kib(r.bytes),
        `${round(r.initMs, 0)} ms`,
        kib(r.baselineBytes),
        `${round(r.baselineInitMs, 0)} ms`,
        String(round(r.baselineBytes / r.bytes)),
        String(round(r.baselineInitMs / r.initMs)),
      ]),
    );
    return { rows, table: table + issueLine };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
