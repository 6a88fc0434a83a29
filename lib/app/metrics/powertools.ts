import { MetricUnit, Metrics as PowertoolsMetrics } from "@aws-lambda-powertools/metrics";
import type { Log, Metrics, MetricUnit as PortUnit } from "#lib/core/ports";
import { METRIC_NAMESPACE, METRIC_SERVICE } from "./catalog";

/** The app's metrics: the port, and the Powertools instance the handlers flush (if any). */
export interface AppMetrics extends Metrics {
  /** Flushed after each invocation by Powertools' `logMetrics` (functions/shared/app-context). */
  readonly powertools?: PowertoolsMetrics;
}

const UNITS: Record<PortUnit, (typeof MetricUnit)[keyof typeof MetricUnit]> = {
  Count: MetricUnit.Count,
  Milliseconds: MetricUnit.Milliseconds,
};

/** Powertools' notice for an invocation that added nothing: most of them, so not a warning. */
const NOTHING_TO_PUBLISH = /^No application metrics to publish/;

/**
 * The Metrics port over Powertools Metrics: CloudWatch EMF lines on stdout, namespace
 * `Statuspilot`, dimension `service`. Values without dimensions of their own are buffered and
 * written as one line when the invocation ends; a value with dimensions is written at once on
 * a line of its own, since one EMF line gives all its values the same dimensions.
 */
export function createPowertoolsMetrics(log: Log): AppMetrics & { powertools: PowertoolsMetrics } {
  const logger = {
    debug: (...content: unknown[]) => log.debug(String(content[0])),
    info: (...content: unknown[]) => log.info(String(content[0])),
    warn: (...content: unknown[]) => {
      const message = String(content[0]);
      if (NOTHING_TO_PUBLISH.test(message)) log.debug(message);
      else log.warn(message);
    },
    error: (...content: unknown[]) => log.error(String(content[0])),
  };
  const powertools = new PowertoolsMetrics({
    namespace: METRIC_NAMESPACE,
    serviceName: METRIC_SERVICE,
    logger,
  });
  return {
    powertools,
    add(name, unit, value, dimensions) {
      const entries = Object.entries(dimensions ?? {});
      if (entries.length === 0) {
        powertools.addMetric(name, UNITS[unit], value);
        return;
      }
      const single = powertools.singleMetric();
      for (const [dimension, dimensionValue] of entries)
        single.addDimension(dimension, dimensionValue);
      single.addMetric(name, UNITS[unit], value);
    },
  };
}
