import { requiredViolations } from "./checks";
import type { SoakReport } from "./run";

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 19);

/** The end-of-run table: each invariant with its count, then what the day contained. */
export function formatReport(report: SoakReport): string {
  const { checks: c, stats: s, scenario } = report;
  const crash = s.crash.at === undefined ? "not injected" : s.crash.recovered ? "yes" : "no";
  const rows: Array<[string, string, string]> = [
    ["half-clears", String(c.halfClears.length), "0"],
    ["sets without a future expiration", String(c.setsWithoutFutureExpiration.length), "0"],
    ["manual statuses overwritten", String(c.manualOverwritten.length), "0"],
    ["manual statuses overwritten, their user_change lost", String(c.blindOverwrites.length), "0"],
    ["two different writes for one transition", String(c.doubleWrites.length), "0"],
    ["out-of-office blocks missed", String(c.oooMissed.length), "0"],
    ["out-of-office blocks late (> 3 min)", String(c.oooLate.length), "0"],
    [
      "checkpoints off the calendar's status (3 min after a change)",
      String(c.offCalendar.length),
      "0",
    ],
    [
      "first block starts after a manual status not shown (3 min)",
      String(c.notBackAfterManual.length),
      "0",
    ],
    ["users off their desired status 10 min after faults", String(c.diverged.length), "0"],
    ["messages lost to a dead-letter queue", String(c.deadLettered), "0"],
    ["worker crash mid-reconcile recovered", crash, "yes"],
    ["scheduled task errors", String(s.taskErrors.length), "0"],
  ];
  const w0 = Math.max(...rows.map((r) => r[0].length));
  const w1 = Math.max(5, ...rows.map((r) => r[1].length));
  const header = `${"invariant".padEnd(w0)}  ${"value".padStart(w1)}  required`;
  const table = rows.map((r) => `${r[0].padEnd(w0)}  ${r[1].padStart(w1)}  ${r[2]}`);
  const outcomes = Object.entries(s.callOutcomes)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  const q = (x: typeof s.syncQueue) =>
    `sent ${x.sent}, delivered twice ${x.duplicated}, redelivered ${x.redelivered}, DLQ ${x.deadLettered}`;
  const info = [
    `users ${scenario.users.length}, simulated ${Math.round(s.simulatedMs / 60_000)} min, seed ${scenario.shape.seed}, wall ${(s.wallMs / 1000).toFixed(1)} s`,
    `scheduled tasks ${s.scheduler.tasks} at ${s.scheduler.instants} instants, ${(s.scheduler.settleMs / 1000).toFixed(1)} s of wall time from each instant to quiet`,
    `service calls ${s.calls}: ${outcomes}`,
    `user_change deliveries handled ${s.eventsHandled}, dropped by the service ${s.eventsDropped}`,
    `user_change deliveries held back ${s.eventsHeld.held} (up to ${Math.round(s.eventsHeld.maxHeldMs / 1000)} s of simulated time), released ${s.eventsHeld.released}, refused on release ${s.eventsHeld.lost}`,
    `profile checkpoints against the independent oracle ${s.checkpoints.total} (${s.checkpoints.afterManual} first block starts after a manual status); late only because every call failed ${c.lateByFaults.count} (slowest ${Math.round(c.lateByFaults.maxMs / 1000)} s)`,
    `manual statuses without expiration ${s.lastingManual.set}, their clears' user_change lost on purpose ${s.lastingManual.clearsLost} (besides the service's own drops)`,
    `manual actions ${s.manualActions}, calendar edits ${s.edits}, out-of-office blocks ${s.ooo} (slowest ${Math.round(s.oooMaxLatencyMs / 1000)} s)`,
    `transition queue: ${q(s.transitionQueue)}; sync queue: ${q(s.syncQueue)}`,
    s.crash.at === undefined
      ? "crash: not injected"
      : `crash: transition worker for ${s.crash.user} killed at ${hhmm(s.crash.at)} UTC after the service accepted its write; redelivered ${s.crash.redelivered ? "yes" : "no"}`,
  ];
  const details = requiredViolations(c)
    .slice(0, 20)
    .map((v) => `  ${v.check}: ${v.user} at ${hhmm(v.at)} ${v.detail}`);
  const errors = s.taskErrors.slice(0, 10).map((e) => `  task error: ${e}`);
  return [
    header,
    "-".repeat(header.length),
    ...table,
    "",
    ...info,
    ...(details.length + errors.length > 0 ? ["", "violations:", ...details, ...errors] : []),
    "",
    report.passed ? "soak passed" : "soak FAILED",
  ].join("\n");
}
