import { afterEach, describe, expect, it, vi } from "vitest";
import { createPowertoolsMetrics } from "#lib/app/metrics/powertools";
import { MetricsRecorder, nearestRank } from "#lib/app/metrics/recorder";
import type { MetricUnit } from "#lib/core/ports";
import { silentLog } from "#lib/core/ports";
import { type EmittedMetric, metricsContract } from "../../contract/metrics.contract";
import { jsonLinesOf } from "../../support/lambda";

/** The JSON lines written to stdout while `run` ran. */
function stdoutLines(run: () => void): Array<Record<string, unknown>> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: unknown) => {
    written.push(String(chunk));
    return true;
  });
  try {
    run();
  } finally {
    spy.mockRestore();
  }
  return jsonLinesOf(written);
}

interface EmfLine {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: Array<{
      Namespace: string;
      Dimensions: string[][];
      Metrics: Array<{ Name: string; Unit: string }>;
    }>;
  };
  [key: string]: unknown;
}

const isEmf = (line: Record<string, unknown>): line is EmfLine => "_aws" in line;

/** Reads EMF lines back into values, as CloudWatch does (the service dimension left aside). */
function fromEmf(lines: EmfLine[]): EmittedMetric[] {
  return lines.flatMap((line) =>
    line._aws.CloudWatchMetrics.flatMap((directive) => {
      const names = (directive.Dimensions[0] ?? []).filter((d) => d !== "service");
      const dimensions = Object.fromEntries(names.map((d) => [d, String(line[d])]));
      return directive.Metrics.flatMap((m) => {
        const raw = line[m.Name];
        const values = Array.isArray(raw) ? (raw as number[]) : [raw as number];
        return values.map((value) => ({
          name: m.Name,
          unit: m.Unit as MetricUnit,
          value,
          dimensions,
        }));
      });
    }),
  );
}

afterEach(() => {
  vi.unstubAllEnvs();
});

metricsContract("Powertools EMF", () => {
  const adapter = createPowertoolsMetrics(silentLog);
  const pending: EmfLine[] = [];
  return {
    metrics: {
      // A value with dimensions is written at once: catch its line as it is added.
      add: (...args) => {
        pending.push(...stdoutLines(() => adapter.add(...args)).filter(isEmf));
      },
    },
    flush: () => {
      const lines = [
        ...pending.splice(0),
        ...stdoutLines(() => adapter.powertools.publishStoredMetrics()).filter(isEmf),
      ];
      return fromEmf(lines);
    },
  };
});

metricsContract("in-memory recorder", () => {
  const recorder = new MetricsRecorder();
  return {
    metrics: recorder,
    flush: () => {
      const values = recorder.recorded();
      recorder.clear();
      return values;
    },
  };
});

describe("the Powertools adapter's EMF", () => {
  it("writes namespace Statuspilot, the service dimension and each metric's unit in the _aws block", () => {
    // Prepare
    const adapter = createPowertoolsMetrics(silentLog);
    // Act
    const dimensioned = stdoutLines(() =>
      adapter.add("ProfileSetCalls", "Count", 1, { outcome: "set" }),
    );
    const flushed = stdoutLines(() => {
      adapter.add("TransitionLateness", "Milliseconds", 1_200);
      adapter.add("UsersNeedingReauth", "Count", 1);
      adapter.powertools.publishStoredMetrics();
    });
    // Assess: one line for the buffered values, one of its own for the dimensioned one
    expect(flushed).toHaveLength(1);
    expect(flushed[0]).toMatchObject({
      _aws: {
        Timestamp: expect.any(Number),
        CloudWatchMetrics: [
          {
            Namespace: "Statuspilot",
            Dimensions: [["service"]],
            Metrics: [
              { Name: "TransitionLateness", Unit: "Milliseconds" },
              { Name: "UsersNeedingReauth", Unit: "Count" },
            ],
          },
        ],
      },
      service: "statuspilot",
      TransitionLateness: 1_200,
      UsersNeedingReauth: 1,
    });
    expect(dimensioned).toHaveLength(1);
    expect(dimensioned[0]).toMatchObject({
      _aws: {
        CloudWatchMetrics: [
          {
            Namespace: "Statuspilot",
            Dimensions: [["service", "outcome"]],
            Metrics: [{ Name: "ProfileSetCalls", Unit: "Count" }],
          },
        ],
      },
      service: "statuspilot",
      outcome: "set",
      ProfileSetCalls: 1,
    });
  });

  it("writes nothing, and warns of nothing, for an invocation that added no value", () => {
    // Prepare
    const warnings: string[] = [];
    const adapter = createPowertoolsMetrics({ ...silentLog, warn: (m) => warnings.push(m) });
    // Act
    const lines = stdoutLines(() => adapter.powertools.publishStoredMetrics());
    // Assess
    expect(lines).toEqual([]);
    expect(warnings).toEqual([]);
  });
});

describe("the recorder's summary", () => {
  it("sums counts per series and gives durations their count, nearest-rank p50 and p99, and max", () => {
    // Prepare: 100 lateness values 1..100 ms, so p50 is 50, p99 is 99
    const recorder = new MetricsRecorder();
    for (let ms = 100; ms >= 1; ms--) recorder.add("TransitionLateness", "Milliseconds", ms);
    recorder.add("ProfileSetCalls", "Count", 1, { outcome: "set" });
    recorder.add("ProfileSetCalls", "Count", 1, { outcome: "set" });
    recorder.add("ProfileSetCalls", "Count", 1, { outcome: "clear" });
    // Act
    const summary = recorder.summary();
    // Assess
    expect(summary).toEqual([
      {
        name: "ProfileSetCalls",
        unit: "Count",
        dimensions: { outcome: "clear" },
        count: 1,
        total: 1,
      },
      {
        name: "ProfileSetCalls",
        unit: "Count",
        dimensions: { outcome: "set" },
        count: 2,
        total: 2,
      },
      {
        name: "TransitionLateness",
        unit: "Milliseconds",
        dimensions: {},
        count: 100,
        total: 5_050,
        p50: 50,
        p99: 99,
        max: 100,
      },
    ]);
  });

  it("takes the nearest rank: the smallest value with at least p% of the values at or below it", () => {
    expect(nearestRank([7], 99)).toBe(7);
    expect(nearestRank([1, 2, 3, 4], 50)).toBe(2);
    expect(nearestRank([1, 2, 3, 4], 99)).toBe(4);
  });
});
