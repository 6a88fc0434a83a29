// lib/app/metrics: every operational metric, counted at the ports and flushed through Powertools.
import type { Metrics, MetricUnit } from "#lib/core/ports";
import type { StatusRecord } from "#lib/core/records";
import { type Block, isEmptyStatus, type StatusValue } from "#lib/core/types";

/**
 * Every metric Statuspilot emits, in namespace `Statuspilot` with the `service` dimension, and
 * the one unit each carries (an alarm with a `Unit` reads only datapoints in that unit). The
 * alarms (infra/resources/alarms.yml) and the dashboard (dashboard.yml) name them; a test over
 * the packaged stack checks that every alarm on the namespace names one of these.
 */
export const METRICS = {
  /** From a scheduled block's start to the service's answer to the set that shows it. */
  TransitionLateness: { unit: "Milliseconds" },
  /** Each `users.profile.set` call, by `outcome`: set, clear or refused (the call failed). */
  ProfileSetCalls: { unit: "Count", dimension: "outcome" },
  /** Each `ratelimited` answer of the service, to a write or to the read before it. */
  RateLimited: { unit: "Count" },
  /** Each versioned write that lost a race (it is retried from a fresh read). */
  VersionConflicts: { unit: "Count" },
  /** One per user newly stopped because the service refused their token for good. */
  UsersNeedingReauth: { unit: "Count" },
  /** Each calendar read that failed or was refused, by `provider` (the source's kind). */
  SyncFailures: { unit: "Count", dimension: "provider" },
  /** Each queue message that failed on its last receive, so went to a dead-letter queue. */
  DeadLetters: { unit: "Count" },
} as const satisfies Record<string, { unit: MetricUnit; dimension?: string }>;

export type MetricName = keyof typeof METRICS;

/** The namespace and service dimension every metric is emitted under. */
export const METRIC_NAMESPACE = "Statuspilot";
export const METRIC_SERVICE = "statuspilot";

/** What became of one `users.profile.set` call. */
export type ProfileSetOutcome = "set" | "clear" | "refused";

const count = (metrics: Metrics, name: MetricName, dimensions?: Record<string, string>) =>
  metrics.add(name, METRICS[name].unit, 1, dimensions);

/** Counts one `users.profile.set` call: `status` is what it sent, `failed` whether it threw. */
export function countProfileSet(metrics: Metrics, status: StatusValue, failed: boolean): void {
  const outcome: ProfileSetOutcome = failed ? "refused" : isEmptyStatus(status) ? "clear" : "set";
  count(metrics, "ProfileSetCalls", { outcome });
}

export const countRateLimited = (metrics: Metrics): void => count(metrics, "RateLimited");
export const countVersionConflict = (metrics: Metrics): void => count(metrics, "VersionConflicts");
export const countUserNeedingReauth = (metrics: Metrics): void =>
  count(metrics, "UsersNeedingReauth");
export const countDeadLetter = (metrics: Metrics): void => count(metrics, "DeadLetters");
export const countSyncFailure = (metrics: Metrics, provider: string): void =>
  count(metrics, "SyncFailures", { provider });

/**
 * Records how late a set showed a block: from the block's start to the service's answer. Only
 * for a transition that was scheduled, i.e. the status record (as loaded, before this write)
 * was due at that very start: a block learned after it began, or a user's own change, is not
 * late for the scheduler, and would drown the alarm in minutes of "lateness".
 */
export function recordTransitionLateness(
  metrics: Metrics,
  loaded: Pick<StatusRecord, "nextTransitionAt">,
  shown: Block | undefined,
  answeredAt: number,
): void {
  if (shown === undefined || loaded.nextTransitionAt !== shown.start) return;
  const lateMs = Math.max(0, answeredAt - shown.start);
  metrics.add("TransitionLateness", METRICS.TransitionLateness.unit, lateMs);
}
