import { describe, expect, it } from "vitest";
import { runConvergence } from "#bench/convergence";

describe("statuspilot bench: convergence (quick)", () => {
  it("runs every reconcile property on its seeds and reports seeds run and failures", () => {
    // Act
    // Three seeds named: a quick run otherwise stops adding seeds after its time budget.
    const result = runConvergence({ size: "quick", firstSeed: 20261121, seeds: 3 });
    // Assess
    expect(result.failures).toBe(0);
    expect(result.seeds).toBe(3);
    expect(result.table).toMatch(
      /^next block shown at its start \(user events lost too\)\s+3\s+600\s+0\s/m,
    );
    expect(result.table).toContain(
      "3 seeds per property (200 days each) from seed 20261121, 0 failures",
    );
  });
});
