import type { CliIo } from "#lib/cli/io";
import { formatRenewalReport, RENEWAL_SHAPE, runRenewalSoak } from "./soak/renewal";
import { formatGraphRenewalReport, runGraphRenewalSoak } from "./soak/renewal-graph";
import { formatReport } from "./soak/report";
import { FULL_SHAPE, QUICK_SHAPE, runSoak } from "./soak/run";

const usage = "usage: statuspilot soak [--quick] [--renewals] [--users N] [--seed N] [--progress]";

/**
 * `statuspilot soak [--quick]`: a fault-injected simulated day, then the renewal soaks (a month
 * of Google channels and of Graph subscriptions); `--renewals` runs only those. Exits 1 when an
 * invariant fails.
 */
export async function run(args: string[], io: CliIo): Promise<number> {
  let shape = args.includes("--quick") ? { ...QUICK_SHAPE } : { ...FULL_SHAPE };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--quick" || arg === "--progress" || arg === "--renewals") continue;
    const value = Number(args[i + 1]);
    if ((arg === "--users" || arg === "--seed") && Number.isInteger(value) && value > 0) {
      shape = arg === "--users" ? { ...shape, users: value } : { ...shape, seed: value };
      i++;
      continue;
    }
    io.err(`${usage}\nunknown or invalid argument: ${arg}`);
    return 64;
  }
  const progress = args.includes("--progress") ? (line: string) => io.err(line) : undefined;
  let dayPassed = true;
  if (!args.includes("--renewals")) {
    io.err(
      `soak: ${shape.users} users, seed ${shape.seed}, faults until ${new Date(shape.faultsOffAt).toISOString()}`,
    );
    const report = await runSoak(shape, progress, (stall) => io.err(stall));
    io.out(formatReport(report));
    dayPassed = report.passed;
  }
  // Issue 14: a simulated month of Google push channels, renewed and repaired under faults.
  const renewal = await runRenewalSoak(
    args.includes("--quick") ? { ...RENEWAL_SHAPE, days: 3 } : RENEWAL_SHAPE,
    progress,
  );
  io.out(formatRenewalReport(renewal));
  // …and of Microsoft Graph subscriptions (one day in --quick, whose test has a time budget).
  const graphRenewal = await runGraphRenewalSoak(
    args.includes("--quick") ? { ...RENEWAL_SHAPE, days: 1 } : RENEWAL_SHAPE,
    progress,
  );
  io.out(formatGraphRenewalReport(graphRenewal));
  return dayPassed && renewal.passed && graphRenewal.passed ? 0 : 1;
}
