import { parseArgs } from "node:util";
import { usageLine } from "#lib/cli/command-specs";
import type { CliIo } from "#lib/cli/io";
import { TOOLING_SPECS } from "./cli-specs";
import { formatRenewalReport, RENEWAL_SHAPE, runRenewalSoak } from "./soak/renewal";
import { formatGraphRenewalReport, runGraphRenewalSoak } from "./soak/renewal-graph";
import { formatReport } from "./soak/report";
import { FULL_SHAPE, QUICK_SHAPE, runSoak } from "./soak/run";

const usage = usageLine("soak", TOOLING_SPECS.soak);

/**
 * `statuspilot soak [--quick]`: a fault-injected simulated day, then the renewal soaks (a month
 * of Google channels and of Graph subscriptions); `--renewals` runs only those. Exits 1 when an
 * invariant fails.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  let values: {
    quick?: boolean;
    renewals?: boolean;
    users?: string;
    seed?: string;
    progress?: boolean;
  };
  try {
    ({ values } = parseArgs({ args, options: TOOLING_SPECS.soak.options, strict: true }));
  } catch (error: unknown) {
    io.err(`${usage}\n${error instanceof Error ? error.message : String(error)}`);
    return 64;
  }
  const quick = values.quick === true;
  let shape = quick ? { ...QUICK_SHAPE } : { ...FULL_SHAPE };
  for (const flag of ["users", "seed"] as const) {
    const given = values[flag];
    if (given === undefined) continue;
    const value = Number(given);
    if (!Number.isInteger(value) || value <= 0) {
      io.err(`${usage}\n--${flag} takes a positive whole number; got ${given}`);
      return 64;
    }
    shape = { ...shape, [flag]: value };
  }
  const progress = values.progress ? (line: string) => io.err(line) : undefined;
  let dayPassed = true;
  if (!values.renewals) {
    io.err(
      `soak: ${shape.users} users, seed ${shape.seed}, faults until ${new Date(shape.faultsOffAt).toISOString()}`,
    );
    const report = await runSoak(shape, progress, (stall) => io.err(stall));
    io.out(formatReport(report));
    dayPassed = report.passed;
  }
  // Issue 14: a simulated month of Google push channels, renewed and repaired under faults.
  const renewal = await runRenewalSoak(
    quick ? { ...RENEWAL_SHAPE, days: 3 } : RENEWAL_SHAPE,
    progress,
  );
  io.out(formatRenewalReport(renewal));
  // …and of Microsoft Graph subscriptions (one day in --quick, whose test has a time budget).
  const graphRenewal = await runGraphRenewalSoak(
    quick ? { ...RENEWAL_SHAPE, days: 1 } : RENEWAL_SHAPE,
    progress,
  );
  io.out(formatGraphRenewalReport(graphRenewal));
  return dayPassed && renewal.passed && graphRenewal.passed ? 0 : 1;
}
