import type { Metrics, MetricUnit } from "#lib/core/ports";

/** One value as it was added. */
export interface RecordedMetric {
  name: string;
  unit: MetricUnit;
  value: number;
  dimensions: Record<string, string>;
}

/**
 * One series (a name and its dimensions) summed up: `total` of its values, how many there were,
 * and for durations the nearest-rank p50 and p99 and the largest.
 */
export interface MetricSeries {
  name: string;
  unit: MetricUnit;
  dimensions: Record<string, string>;
  count: number;
  total: number;
  p50?: number;
  p99?: number;
  max?: number;
}

/** The Metrics port in memory: the local stack's `GET /_local/metrics`, and tests. */
export class MetricsRecorder implements Metrics {
  private readonly values: RecordedMetric[] = [];

  add(name: string, unit: MetricUnit, value: number, dimensions: Record<string, string> = {}) {
    this.values.push({ name, unit, value, dimensions: { ...dimensions } });
  }

  /** Every value added so far, oldest first. */
  recorded(): RecordedMetric[] {
    return this.values.map((v) => ({ ...v, dimensions: { ...v.dimensions } }));
  }

  /** The values of one metric (optionally of the series with these dimensions). */
  valuesOf(name: string, dimensions?: Record<string, string>): number[] {
    return this.values
      .filter((v) => v.name === name && (dimensions === undefined || sameKeys(v, dimensions)))
      .map((v) => v.value);
  }

  /** Each series summed up, ordered by name, then dimensions. */
  summary(): MetricSeries[] {
    const series = new Map<string, RecordedMetric[]>();
    for (const v of this.values) {
      const id = `${v.name}\u0000${v.unit}\u0000${JSON.stringify(sortedEntries(v.dimensions))}`;
      series.set(id, [...(series.get(id) ?? []), v]);
    }
    return [...series.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, values]) => summarise(values));
  }

  clear(): void {
    this.values.length = 0;
  }
}

const sortedEntries = (d: Record<string, string>) =>
  Object.entries(d).sort(([a], [b]) => (a < b ? -1 : 1));

const sameKeys = (v: RecordedMetric, d: Record<string, string>) =>
  JSON.stringify(sortedEntries(v.dimensions)) === JSON.stringify(sortedEntries(d));

/** The value at rank ceil(p/100 · n) of the sorted values (the nearest-rank percentile). */
export function nearestRank(sorted: readonly number[], p: number): number {
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] ?? Number.NaN;
}

function summarise(values: RecordedMetric[]): MetricSeries {
  const first = values[0] as RecordedMetric;
  const numbers = values.map((v) => v.value);
  const base = {
    name: first.name,
    unit: first.unit,
    dimensions: { ...first.dimensions },
    count: numbers.length,
    total: numbers.reduce((sum, n) => sum + n, 0),
  };
  if (first.unit !== "Milliseconds") return base;
  const sorted = [...numbers].sort((a, b) => a - b);
  return {
    ...base,
    p50: nearestRank(sorted, 50),
    p99: nearestRank(sorted, 99),
    max: sorted[sorted.length - 1] as number,
  };
}
