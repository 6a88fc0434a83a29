import type { Reporter, TestModule } from "vitest/node";

/**
 * A vitest reporter for `npm run test:profile`: after the run, the 20 test files that cost the
 * most, each with its import (collect) time and its tests' time, then the totals over all files.
 * A file's cost is what its worker spent on it: preparing the runner, the setup file, importing
 * the file and everything it imports, and running its tests and hooks.
 */
const SHOWN = 20;

interface FileCost {
  file: string;
  total: number;
  imports: number;
  tests: number;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`.padStart(8);

function costOf(module: TestModule, root: string): FileCost {
  const d = module.diagnostic();
  const imports = d.collectDuration;
  const overhead = d.environmentSetupDuration + d.prepareDuration + d.setupDuration;
  const file = module.moduleId.startsWith(root)
    ? module.moduleId.slice(root.length + 1)
    : module.moduleId;
  return { file, total: overhead + imports + d.duration, imports, tests: d.duration };
}

export default class SlowestFiles implements Reporter {
  private root = "";
  private startedAt = 0;

  onInit(ctx: { config: { root: string } }): void {
    this.root = ctx.config.root;
    this.startedAt = performance.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const costs = modules.map((m) => costOf(m, this.root)).sort((a, b) => b.total - a.total);
    const sum = (pick: (c: FileCost) => number) => costs.reduce((t, c) => t + pick(c), 0);
    const lines = [
      "",
      `The ${Math.min(SHOWN, costs.length)} slowest of ${costs.length} test files:`,
      `${"total".padStart(8)} ${"imports".padStart(8)} ${"tests".padStart(8)}  file`,
      ...costs
        .slice(0, SHOWN)
        .map((c) => `${seconds(c.total)} ${seconds(c.imports)} ${seconds(c.tests)}  ${c.file}`),
      `${seconds(sum((c) => c.total))} ${seconds(sum((c) => c.imports))} ${seconds(sum((c) => c.tests))}  all files (summed over workers)`,
      `wall time of the run: ${seconds(performance.now() - this.startedAt).trim()}`,
      "",
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  }
}
