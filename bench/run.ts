import type { CliIo } from "../lib/cli/io";
import { type BundleRow, runBundleBench } from "./bundles";
import { runCalendarBench } from "./calendar";
import { runConvergence } from "./convergence";
import { costTable, runCostBench } from "./cost";
import { herdTable, runHerd } from "./herd";

export type BenchSize = "quick" | "default" | "full";

/** How big each benchmark runs at each size. */
export const SIZES: Record<
  BenchSize,
  { herd: number; adminHerd: number; costUsers: number; costDays: number }
> = {
  quick: { herd: 100, adminHerd: 45, costUsers: 1, costDays: 2 },
  default: { herd: 1000, adminHerd: 300, costUsers: 4, costDays: 30 },
  full: { herd: 10_000, adminHerd: 900, costUsers: 100, costDays: 30 },
};

const usage =
  "usage: statuspilot bench [--quick|--full] [--only calendar,herd,cost,bundles,convergence] [--seeds N]";
const PARTS = ["calendar", "herd", "cost", "bundles", "convergence"] as const;
type Part = (typeof PARTS)[number];

/** `statuspilot bench [--quick|--full]`: every benchmark, each beside its baseline, as tables. */
export async function run(args: string[], io: CliIo): Promise<number> {
  let size: BenchSize = "default";
  let only: Set<Part> = new Set(PARTS);
  let seeds: number | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--quick") size = "quick";
    else if (arg === "--seeds") {
      const value = args[++i] ?? "";
      seeds = Number(value);
      if (!/^[1-9]\d*$/.test(value)) {
        io.err(`bench: --seeds takes a positive whole number; got ${value || "nothing"}`);
        return 64;
      }
    } else if (arg === "--full") size = "full";
    else if (arg === "--only") {
      const list = (args[++i] ?? "").split(",").filter((p) => p !== "");
      const unknown = list.filter((p) => !(PARTS as readonly string[]).includes(p));
      if (list.length === 0 || unknown.length > 0) {
        io.err(`bench: --only takes ${PARTS.join(",")}; got ${unknown.join(",") || "nothing"}`);
        return 64;
      }
      only = new Set(list as Part[]);
    } else {
      io.err(`bench: unknown argument ${arg}\n${usage}`);
      return 64;
    }
  }
  const s = SIZES[size];
  const started = performance.now();
  io.out(`statuspilot bench (${size}) on node ${process.version}`);
  let failed = false;
  const part = async (name: Part, fn: () => Promise<string>) => {
    if (!only.has(name)) return;
    const t0 = performance.now();
    try {
      io.out(`\n${await fn()}\n(${name}: ${Math.round((performance.now() - t0) / 100) / 10} s)`);
    } catch (error: unknown) {
      failed = true;
      io.err(`bench ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  let bundles: BundleRow[] = [];
  await part("calendar", async () => (await runCalendarBench({ quick: size === "quick" })).table);
  await part("bundles", async () => {
    const result = await runBundleBench({ quick: size === "quick" });
    bundles = result.rows;
    return result.table;
  });
  await part("herd", async () => {
    const perUser = await runHerd({ users: s.herd });
    const admin = await runHerd({ users: s.adminHerd, adminToken: true, oooEvery: 5 });
    return herdTable([perUser, admin]);
  });
  await part("cost", async () => {
    const initMs = Object.fromEntries(bundles.map((b) => [b.fn, b.initMs]));
    const result = await runCostBench({ users: s.costUsers, days: s.costDays, initMs });
    return costTable(result);
  });
  await part("convergence", async () => {
    const result = runConvergence({ size, ...(seeds !== undefined ? { seeds } : {}) });
    if (result.failures > 0) throw new Error(`a reconcile property failed\n${result.table}`);
    return result.table;
  });
  io.out(`\ntotal ${Math.round((performance.now() - started) / 1000)} s`);
  return failed ? 1 : 0;
}
