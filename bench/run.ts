import { parseArgs } from "node:util";
import { usageLine } from "#lib/cli/command-specs";
import type { CliIo } from "#lib/cli/io";
import { type BundleRow, runBundleBench, TRANSITION_WORKER_ISSUE_12 } from "./bundles";
import { runCalendarBench } from "./calendar";
import { BENCH_PARTS, TOOLING_SPECS } from "./cli-specs";
import { runConvergence } from "./convergence";
import { costTable, runCostBench } from "./cost";
import { runFeedBoundsBench } from "./feed-bounds";
import { ADMIN_HERD_TARGET_S, HERD_P99_TARGET_S, herdTable, runHerd } from "./herd";
import { runStandingBench, standingTable } from "./standing";

export type BenchSize = "quick" | "default" | "full";

/** How big each benchmark runs at each size. */
export const SIZES: Record<
  BenchSize,
  { herd: number; adminHerd: number; costUsers: number; costDays: number; standingUsers: number }
> = {
  quick: { herd: 100, adminHerd: 45, costUsers: 1, costDays: 2, standingUsers: 10 },
  default: { herd: 1000, adminHerd: 300, costUsers: 4, costDays: 30, standingUsers: 100 },
  full: { herd: 10_000, adminHerd: 900, costUsers: 100, costDays: 30, standingUsers: 500 },
};

const PARTS = BENCH_PARTS;
type Part = (typeof PARTS)[number];

/**
 * `statuspilot bench [--quick|--full] [--json]`: every benchmark, each beside its baseline, as
 * tables; with `--json`, the tables go to stderr and stdout gets every figure as one JSON
 * object (its keys are documented in bench/README.md), to compare runs.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  let values: { quick?: boolean; full?: boolean; only?: string; seeds?: string; json?: boolean };
  try {
    ({ values } = parseArgs({ args, options: TOOLING_SPECS.bench.options, strict: true }));
  } catch (error: unknown) {
    const message = error instanceof Error ? error.message : String(error);
    io.err(`bench: ${message}\n${usageLine("bench", TOOLING_SPECS.bench)}`);
    return 64;
  }
  const size: BenchSize = values.full ? "full" : values.quick ? "quick" : "default";
  const json = values.json === true;
  let seeds: number | undefined;
  if (values.seeds !== undefined) {
    seeds = Number(values.seeds);
    if (!/^[1-9]\d*$/.test(values.seeds)) {
      io.err(`bench: --seeds takes a positive whole number; got ${values.seeds || "nothing"}`);
      return 64;
    }
  }
  let only: Set<Part> = new Set(PARTS);
  if (values.only !== undefined) {
    const list = values.only.split(",").filter((p) => p !== "");
    const unknown = list.filter((p) => !(PARTS as readonly string[]).includes(p));
    if (list.length === 0 || unknown.length > 0) {
      io.err(`bench: --only takes ${PARTS.join(",")}; got ${unknown.join(",") || "nothing"}`);
      return 64;
    }
    only = new Set(list as Part[]);
  }
  const s = SIZES[size];
  const started = performance.now();
  // With --json, stdout carries the JSON object alone.
  const say = (text: string) => (json ? io.err(text) : io.out(text));
  say(`statuspilot bench (${size}) on node ${process.version}`);
  const figures: Record<string, unknown> = { size, node: process.version };
  let failed = false;
  const part = async (name: Part, fn: () => Promise<string>) => {
    if (!only.has(name)) return;
    const t0 = performance.now();
    try {
      say(`\n${await fn()}\n(${name}: ${Math.round((performance.now() - t0) / 100) / 10} s)`);
    } catch (error: unknown) {
      failed = true;
      const message = error instanceof Error ? error.message : String(error);
      figures[name] = { failed: message };
      io.err(`bench ${name} failed: ${message}`);
    }
  };
  let bundles: BundleRow[] = [];
  await part("calendar", async () => {
    const { table, ...result } = await runCalendarBench({ quick: size === "quick" });
    // Beside it, a feed's bounded work: the real-shaped feed and ones built to explode.
    const bounds = await runFeedBoundsBench({ quick: size === "quick" });
    figures.calendar = { ...result, feedBounds: bounds.rows };
    return `${table}\n\n${bounds.table}`;
  });
  await part("bundles", async () => {
    const result = await runBundleBench({ quick: size === "quick" });
    bundles = result.rows;
    figures.bundles = { rows: result.rows, transitionWorkerIssue12: TRANSITION_WORKER_ISSUE_12 };
    return result.table;
  });
  await part("herd", async () => {
    const init = bundles.find((b) => b.fn === "transitionWorker")?.initMs;
    const coldStart = init !== undefined ? { coldStartMs: init } : {};
    const perUser = await runHerd({ users: s.herd, ...coldStart });
    const admin = await runHerd({
      users: s.adminHerd,
      adminToken: true,
      oooEvery: 5,
      ...coldStart,
    });
    figures.herd = {
      perUser,
      admin,
      targets: { modelledAwsP99S: HERD_P99_TARGET_S, adminAllSetAfterS: ADMIN_HERD_TARGET_S },
    };
    return herdTable([perUser, admin]);
  });
  await part("cost", async () => {
    const initMs = Object.fromEntries(bundles.map((b) => [b.fn, b.initMs]));
    const result = await runCostBench({ users: s.costUsers, days: s.costDays, initMs });
    figures.cost = result;
    return costTable(result);
  });
  await part("convergence", async () => {
    const { table, ...result } = runConvergence({
      size,
      ...(seeds !== undefined ? { seeds } : {}),
    });
    figures.convergence = result;
    if (result.failures > 0) throw new Error(`a reconcile property failed\n${table}`);
    return table;
  });
  await part("standing", async () => {
    const results = await runStandingBench(s.standingUsers);
    figures.standing = results;
    return standingTable(results);
  });
  const totalS = Math.round((performance.now() - started) / 1000);
  say(`\ntotal ${totalS} s`);
  if (json) io.out(JSON.stringify({ ...figures, totalS, failed }, null, 2));
  return failed ? 1 : 0;
}
