import { randomInt } from "node:crypto";
import fc from "fast-check";
import { type Command, days, lossyDays } from "./reconcile/commands";
import { type Invariant, Simulation, type SimulationOptions } from "./reconcile/simulation";

/**
 * The reconcile properties of test/unit/core/reconcile-properties.test.ts on many seeds: `npm
 * test` runs one fixed seed; this runs as many fresh ones as fit in a time budget, so a rare
 * ordering of events (the same-second tie was one) is found here rather than in production.
 * A failing seed replays with `SIM_SEED=<seed> npx vitest run test/unit/core/reconcile-properties.test.ts`.
 */

export type ConvergenceSize = "quick" | "default" | "full";

export interface ConvergenceOptions {
  size: ConvergenceSize;
  /** Seeds per property; default: as many as the size's time budget allows. */
  seeds?: number;
  /** The first seed; default: a random one, printed so a run can be repeated. */
  firstSeed?: number;
}

/** Days per seed, the most seeds, and the wall-time budget each size allows. */
const SIZES: Record<ConvergenceSize, { daysPerSeed: number; maxSeeds: number; budgetMs: number }> =
  {
    quick: { daysPerSeed: 200, maxSeeds: 3, budgetMs: 10_000 },
    default: { daysPerSeed: 1000, maxSeeds: 10_000, budgetMs: 45_000 },
    full: { daysPerSeed: 1000, maxSeeds: 100_000, budgetMs: 300_000 },
  };

interface Property {
  name: string;
  days: fc.Arbitrary<Command[]>;
  options: SimulationOptions;
  /** Runs to the start of a block after every other one before checking. */
  nextBlock: boolean;
  invariants: Invariant[];
}

const ALWAYS: Invariant[] = ["clear_shape", "set_expiration", "one_write", "echo_ours"];

const PROPERTIES: Property[] = [
  {
    name: "converges (events late, doubled, reordered; echoes lost)",
    days,
    options: { verify: false },
    nextBlock: false,
    invariants: [...ALWAYS, "manual_kept"],
  },
  {
    name: "converges, read before every write",
    days,
    options: { verify: true },
    nextBlock: false,
    invariants: [...ALWAYS, "manual_kept"],
  },
  {
    name: "next block shown at its start (user events lost too)",
    days: lossyDays,
    options: { verify: false },
    nextBlock: true,
    invariants: [...ALWAYS, "manual_kept"],
  },
  {
    name: "next block shown at its start, read before every write",
    days: lossyDays,
    options: { verify: true },
    nextBlock: true,
    invariants: [...ALWAYS, "manual_never_overwritten"],
  },
  {
    name: "standing restore: what the person did shows (their events prompt)",
    days,
    options: { verify: false, standing: "restore", promptUserEvents: true },
    nextBlock: false,
    invariants: [...ALWAYS, "person_status_kept", "restore_standing"],
  },
];

interface Tally {
  seeds: number;
  days: number;
  failures: Array<{ seed: number; error: string; counterexample: string }>;
  reads: number;
  writes: number;
}

export interface ConvergenceResult {
  table: string;
  seeds: number;
  failures: number;
}

/** What is wrong with a simulated day, or `undefined` when nothing is. */
function problemOf(sim: Simulation, property: Property): string | undefined {
  for (const invariant of property.invariants) {
    const found = sim.of(invariant);
    if (found.length > 0) return `${invariant}: ${found[0]}`;
  }
  return sim.converged() ? undefined : "did not converge to the desired status";
}

function runSeed(property: Property, seed: number, runs: number, tally: Tally): void {
  const result = fc.check(
    fc.property(property.days, (commands) => {
      const sim = new Simulation(property.options);
      for (const command of commands) sim.run(command);
      sim.settle();
      if (property.nextBlock) sim.startNextBlock();
      tally.reads += sim.reads;
      tally.writes += sim.writes;
      const problem = problemOf(sim, property);
      if (problem !== undefined) throw new Error(problem);
    }),
    { seed, numRuns: runs },
  );
  tally.seeds++;
  tally.days += result.numRuns;
  if (result.failed) {
    const error = result.errorInstance instanceof Error ? result.errorInstance.message : "failed";
    tally.failures.push({ seed, error, counterexample: JSON.stringify(result.counterexample) });
  }
}

const pad = (cells: Array<string | number>, widths: number[]): string =>
  cells.map((c, i) => String(c).padEnd(widths[i] ?? 0)).join("  ");

/** Runs every property on fresh seeds until each has had `seeds` or the budget is spent. */
export function runConvergence(options: ConvergenceOptions): ConvergenceResult {
  const size = SIZES[options.size];
  const maxSeeds = options.seeds ?? size.maxSeeds;
  const firstSeed = options.firstSeed ?? randomInt(1, 2 ** 31 - maxSeeds);
  const tallies = PROPERTIES.map(
    (): Tally => ({ seeds: 0, days: 0, failures: [], reads: 0, writes: 0 }),
  );
  const started = performance.now();
  // Round-robin over the properties, so a spent budget leaves each with about as many seeds.
  // An explicit seed count is run in full, whatever the time.
  for (let i = 0; i < maxSeeds; i++) {
    if (options.seeds === undefined && performance.now() - started > size.budgetMs) break;
    PROPERTIES.forEach((property, p) => {
      const tally = tallies[p];
      if (tally !== undefined) runSeed(property, firstSeed + i, size.daysPerSeed, tally);
    });
  }
  const seconds = (performance.now() - started) / 1000;
  const widths = [56, 6, 9, 9, 15];
  const rows = PROPERTIES.map((property, p) => {
    const t = tallies[p] ?? { seeds: 0, days: 0, failures: [], reads: 0, writes: 0 };
    const readsPerWrite = t.writes === 0 ? "-" : (t.reads / t.writes).toFixed(2);
    return pad([property.name, t.seeds, t.days, t.failures.length, readsPerWrite], widths);
  });
  const failures = tallies.flatMap((t, p) =>
    t.failures.map(
      (f) =>
        `FAILED ${PROPERTIES[p]?.name} seed ${f.seed}: ${f.error}\n  counterexample ${f.counterexample}`,
    ),
  );
  const seeds = Math.min(...tallies.map((t) => t.seeds));
  const header = pad(
    ["reconcile property", "seeds", "days", "failures", "reads per write"],
    widths,
  );
  const table = [
    "Convergence: random days through the reconciler's core, against the rules restated",
    header,
    "-".repeat(header.length),
    ...rows,
    "",
    `${seeds} seeds per property (${size.daysPerSeed} days each) from seed ${firstSeed}, ` +
      `${failures.length} failures, ${seconds.toFixed(1)} s`,
    ...failures,
  ].join("\n");
  return { table, seeds, failures: failures.length };
}
