import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

// The deployment the cost bench prices: list prices, the functions' memory, the schedules' and
// the queues' fixed work, and the SQS event sources as serverless.yml declares them.

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** AWS list prices, us-east-1, on-demand, as of 2025 (US$). */
export const PRICES = {
  lambdaRequest: 0.2 / 1e6,
  /** arm64, as serverless.yml deploys. */
  lambdaGbSecond: 0.0000133334,
  dynamoReadUnit: 0.125 / 1e6,
  dynamoWriteUnit: 0.625 / 1e6,
  sqsRequest: 0.4 / 1e6,
  httpApiRequest: 1.0 / 1e6,
  kmsRequest: 0.03 / 1e4,
  /** A customer-managed KMS key (the token key), per month, whatever it is used for. */
  kmsKeyMonth: 1.0,
  /** CloudWatch Logs ingestion per GB (storage after the first month not counted). */
  logsIngestGb: 0.5,
} as const;
/**
 * Billed duration of one feed fetch from a real calendar host (DNS, TLS, the transfer): the
 * loopback fetch measured here is near zero, so each figure is also given with this added to
 * every feed fetch, ours and the baselines'.
 */
export const REALISTIC_FETCH_MS = 200;
/** Lambda's own START, END and REPORT lines in CloudWatch Logs, per invocation (bytes). */
export const PLATFORM_LOG_BYTES = 330;
/** Users one invocation of the multi-tenant poller serves (as hudl/CalendarToSlack does). */
export const TENANTS_PER_POLL = 10;
/** serverless.yml's provider memorySize. */
export const MEMORY_GB = 0.5;
/** EventBridge runs the tick every minute and the poll every 5 minutes, once per deployment. */
export const TICKS_PER_DAY = 1440;
export const POLLS_PER_DAY = 288;
/**
 * Lambda's SQS event source long-polls each queue with 5 pollers, 20 s waits: about
 * 5 × 3 × 1,440 receives a day per queue even when it is empty. Two queues, per deployment.
 * AWS may scale an idle source down to 2 pollers "to reduce the SQS calls", but not one with a
 * maximum concurrency (AWS Lambda Developer Guide, "Configuring scaling behavior for SQS event
 * source mappings"), and both of ours have one (serverless.yml: each equal to its worker's
 * reservation, so the poller never invokes into throttles).
 */
export const IDLE_RECEIVES_PER_DAY = 2 * 5 * 3 * 1440;

/** An SQS event source as serverless.yml declares it. */
export interface SqsSource {
  batchSize: number;
  windowS: number;
}

/** Reads the SQS event sources' batch size and batching window from serverless.yml. */
export function sqsSources(): Record<"syncWorker" | "transitionWorker", SqsSource> {
  const doc = parse(readFileSync(path.join(repoRoot, "serverless.yml"), "utf8"), {
    logLevel: "silent",
  }) as { functions?: Record<string, { events?: Array<{ sqs?: Record<string, unknown> }> }> };
  const of = (fn: string): SqsSource => {
    const sqs = doc.functions?.[fn]?.events?.find((e) => e.sqs)?.sqs ?? {};
    const n = (v: unknown, fallback: number) => (typeof v === "number" ? v : fallback);
    return { batchSize: n(sqs.batchSize, 10), windowS: n(sqs.maximumBatchingWindow, 0) };
  };
  return { syncWorker: of("syncWorker"), transitionWorker: of("transitionWorker") };
}

/** The month the figures are priced over (days). */
export const DAYS_PER_MONTH = 30;
