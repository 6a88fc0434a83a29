import { describe, expect, it } from "vitest";
import { run } from "#bench/soak";

describe("statuspilot soak --quick", () => {
  it("survives the fault-injected short day with every invariant at zero and exits 0", async () => {
    // Prepare
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => out.push(t), err: (t: string) => err.push(t) };
    // Act
    const code = await run(["--quick"], io);
    // Assess
    const report = out.join("\n");
    expect(report).toContain("half-clears");
    expect(report).toMatch(/worker crash mid-reconcile recovered\s+yes/);
    expect(report).toMatch(/service calls \d+: .*internal_error/);
    expect(report).toMatch(/user_change deliveries held back [1-9]\d* .*refused on release 0/);
    expect(report).toMatch(/manual statuses overwritten, their user_change lost\s+0\s+0/);
    // The calendar's status, from the independent oracle, at every checkpoint of the day.
    expect(report).toMatch(
      /checkpoints off the calendar's status \(3 min after a change\)\s+0\s+0/,
    );
    expect(report).toMatch(
      /profile checkpoints against the independent oracle [1-9]\d* \([1-9]\d* first/,
    );
    // Statuses without expiration, one clear's user_change lost on purpose: back by the next block.
    expect(report).toMatch(/first block starts after a manual status not shown \(3 min\)\s+0\s+0/);
    expect(report).toMatch(/manual statuses without expiration 3, their clears' user_change lost/);
    expect(report).toContain("soak passed");
    expect(code).toBe(0);
  }, 120_000);

  it("refuses an unknown argument with a usage line and exit code 64", async () => {
    // Prepare
    const err: string[] = [];
    // Act
    const code = await run(["--fast"], { out: () => {}, err: (t) => err.push(t) });
    // Assess
    expect(code).toBe(64);
    expect(err.join("\n")).toContain("Unknown option '--fast'");
  });
});
