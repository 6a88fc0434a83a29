import { type MetricSeries, MetricsRecorder } from "#lib/app/metrics/recorder";
import type { Clock } from "#lib/core/clock";

/** What `GET /_local/metrics` answers: every series recorded since the stack started. */
export interface LocalMetricsAnswer {
  now: number;
  series: MetricSeries[];
}

/**
 * The local stack's metrics: the recorder the app emits into (in place of CloudWatch EMF),
 * and its read-out at `GET /_local/metrics` (`statuspilot metrics` prints it).
 */
export function localMetrics(clock: Clock) {
  const recorder = new MetricsRecorder();
  return {
    recorder,
    /** Answers `GET /_local/metrics`; undefined for any other request. */
    endpoint(
      method: string | undefined,
      url: URL,
    ): { status: number; body: LocalMetricsAnswer } | undefined {
      if (method !== "GET" || url.pathname !== "/_local/metrics") return undefined;
      return { status: 200, body: { now: clock.now(), series: recorder.summary() } };
    },
  };
}
