import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function runBench(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["bin/statuspilot.mjs", "bench", ...args], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, out, err }));
  });
}

describe("statuspilot bench --quick", () => {
  it("prints every table, sets each herd status with one call and no ratelimited answer", async () => {
    // Prepare / Act
    const { code, out, err } = await runBench(["--quick"]);

    // Assess
    expect(err).not.toMatch(/bench \w+ failed/);
    expect(code).toBe(0);
    expect(out).toContain("all three identical: yes");
    // Beside the calendar table, a feed's bounded work: the real-shaped feed, read in full, and
    // the worst one under the caps, stopped at its (quick) CPU budget.
    expect(out).toMatch(/^real-shaped, 2,000 events\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s+none\s/m);
    expect(out).toMatch(/^worst under the caps: .*\s+time_budget\s+\d+\s*$/m);
    expect(out).toMatch(/^transitionWorker\s+\d/m);
    const perUser = out.match(/^100 users, per-user token\s+.*$/m)?.[0] ?? "";
    expect(perUser.split(/\s{2,}/).slice(4, 7)).toEqual(["1", "0", "yes"]);
    const admin = out.match(/^45 users, admin token.*$/m)?.[0] ?? "";
    expect(admin.split(/\s{2,}/).slice(4, 7)).toEqual(["1", "0", "yes"]);
    // The herd's tick sends its 100 transitions ten to a request.
    expect(out).toMatch(
      /^the tick's sends at the herd \(100 own-token users\): 100 transitions in 10 SendMessageBatch requests, 8 in flight/m,
    );
    // One admin token: never more than spec 8.1's 30 users a minute, and all 45 get set.
    const perMinute = (out.match(/statuses set per minute after 09:00: ([\d, ]+) \(/)?.[1] ?? "")
      .split(", ")
      .map(Number);
    expect(perMinute.every((n) => n > 0 && n <= 30)).toBe(true);
    expect(perMinute.reduce((a, b) => a + b, 0)).toBe(45);
    expect(out).toMatch(/^ {2}per busy block \(incl\. explicit clears\)\s+1\s/m);
    // standing: 1 set per block in keep mode; 1 set and 1 restore in restore mode, all restored.
    expect(out).toMatch(/^keep\s+10\s+1\s+0\s/m);
    expect(out).toMatch(
      /^restore\s+10\s+1\s+1\s+[\d.]+\s+[\d.]+ \/ [\d.]+ \/ [\d.]+ s\s+[\d.]+ s\s+10\/10$/m,
    );
    expect(out).toMatch(/^US\$ per user-month\s+\d/m);
    // Health (issue 26) adds under one call per user-day on a quiet day: nobody opens the Home
    // tab and no calendar breaks.
    const health = out.match(
      /^health: notice runs, views\.publish, chat\.postMessage \(< 1\)\s+([\d.]+)/m,
    );
    expect(Number(health?.[1] ?? "NaN")).toBeLessThan(1);
    // The same run priced by deployment size, and where issue 12's targets would be met.
    expect(out).toMatch(/^1,000 \(headline\)\s+0\.\d+\s+0\.\d+\s+[\d.]+\s+[\d.]+$/m);
    expect(out).toMatch(/^as N grows\s+0\.\d+\s+0\s/m);
    expect(out).toMatch(
      /^issue 12's targets \(the smallest N that meets each\): US\$ ≤ 0\.002 per user-month (from [\d,]+ users|at no size)/m,
    );
    expect(out).toMatch(
      /^fixed charges at 1,000 users: \$[\d.]+ per user-month before any user does anything/m,
    );
    // Counts, never negative: the schedule runs taken out are the ones the simulation measured.
    expect(out).toMatch(/^DynamoDB reads \(read units\)\s+\d[\d.]* \(\d[\d.]*\)\s/m);
    expect(out).toMatch(/^DynamoDB reads \(read units\), whole user\s+\d[\d.]* \(\d[\d.]*\)\s+\d/m);
    // The cost table breaks invocations down by function and states whether the goal is met.
    expect(out).toMatch(/^syncWorker\s+\d/m);
    expect(out).toMatch(/^serviceEvents\s+\d/m);
    expect(out).toMatch(/fewer than polling \(goal ≥ 50×: (met|NOT met)\)/);
    // Do Not Disturb is on for every simulated user: its calls per busy block are reported.
    expect(out).toMatch(
      /^Do Not Disturb on for meetings and focus \(every user\): per busy block dnd\.info [\d.]+, dnd\.setSnooze [\d.]+[ ,]/m,
    );
    // Beside the ICS users, a push-backed Google user: the polls and dollars it saves.
    expect(out).toMatch(/^polls: poll checks that read the calendar\s+[\d.]+\s+[\d.]+$/m);
    expect(out).toMatch(/^push-backed: [\d.]+× fewer polls, \$[\d.]+ (saved|MORE) per user-month/m);
  }, 240_000);

  it("refuses an unknown argument with usage and exit code 64", async () => {
    // Prepare / Act
    const { code, err } = await runBench(["--fast"]);

    // Assess
    expect(code).toBe(64);
    expect(err).toContain("Unknown option '--fast'");
  }, 60_000);
});
