import { describe, expect, it } from "vitest";
import type { Metrics, MetricUnit } from "#lib/core/ports";

// The rule every Metrics adapter keeps (lib/core/ports.ts): each value added comes out once,
// with its name, its unit and the dimensions given with it (besides the service dimension the
// adapter adds to all), and no dimension of one value leaks onto another.

/** One value as an adapter let it out, the service dimension left aside. */
export interface EmittedMetric {
  name: string;
  unit: MetricUnit;
  value: number;
  dimensions: Record<string, string>;
}

export interface MetricsUnderTest {
  metrics: Metrics;
  /** Ends the invocation: what the adapter let out since the last flush. */
  flush(): EmittedMetric[];
}

const byNameAndValue = (a: EmittedMetric, b: EmittedMetric) =>
  a.name === b.name ? a.value - b.value : a.name < b.name ? -1 : 1;

export function metricsContract(name: string, make: () => MetricsUnderTest): void {
  describe(`Metrics contract: ${name}`, () => {
    it("lets out each value once, with its unit", () => {
      // Prepare
      const subject = make();
      // Act
      subject.metrics.add("RateLimited", "Count", 1);
      subject.metrics.add("TransitionLateness", "Milliseconds", 1_200);
      const emitted = subject.flush();
      // Assess
      expect(emitted.sort(byNameAndValue)).toEqual([
        { name: "RateLimited", unit: "Count", value: 1, dimensions: {} },
        { name: "TransitionLateness", unit: "Milliseconds", value: 1_200, dimensions: {} },
      ]);
      expect(subject.flush()).toEqual([]);
    });

    it("keeps every value of a metric added several times in one invocation", () => {
      // Prepare
      const subject = make();
      // Act
      for (const ms of [900, 50, 4_000])
        subject.metrics.add("TransitionLateness", "Milliseconds", ms);
      // Assess
      expect(
        subject
          .flush()
          .map((m) => m.value)
          .sort((a, b) => a - b),
      ).toEqual([50, 900, 4_000]);
    });

    it("keeps a value's own dimensions on that value only", () => {
      // Prepare
      const subject = make();
      // Act
      subject.metrics.add("SyncFailures", "Count", 1, { provider: "google" });
      subject.metrics.add("ProfileSetCalls", "Count", 1, { outcome: "clear" });
      subject.metrics.add("VersionConflicts", "Count", 1);
      // Assess
      expect(subject.flush().sort(byNameAndValue)).toEqual([
        { name: "ProfileSetCalls", unit: "Count", value: 1, dimensions: { outcome: "clear" } },
        { name: "SyncFailures", unit: "Count", value: 1, dimensions: { provider: "google" } },
        { name: "VersionConflicts", unit: "Count", value: 1, dimensions: {} },
      ]);
    });
  });
}
