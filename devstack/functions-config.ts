import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

/** What the local runtime must honour of a function, as deployed. */
export interface FunctionConfig {
  name: string;
  timeoutMs: number;
  /** The SQS queue feeding it, when it has one. */
  queue?: QueueConfig;
}

export interface QueueConfig {
  /** The queue's logical id in the CloudFormation resources (e.g. `SyncQueue`). */
  logicalId: string;
  batchSize: number;
  visibilityTimeoutMs: number;
  maxReceiveCount: number;
}

export class FunctionsConfigError extends Error {
  constructor(
    message: string,
    readonly pointer: string,
  ) {
    super(message);
    this.name = "FunctionsConfigError";
  }
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** Lambda's own default when neither the function nor the provider sets one. */
const LAMBDA_DEFAULT_TIMEOUT_S = 6;
/** SQS's own defaults. */
const SQS_DEFAULT_VISIBILITY_S = 30;
const SQS_DEFAULT_BATCH = 10;

interface ServerlessDoc {
  provider?: { timeout?: unknown };
  functions?: Record<
    string,
    { timeout?: unknown; events?: Array<{ sqs?: { arn?: unknown; batchSize?: unknown } }> }
  >;
}

interface QueuesDoc {
  Resources?: Record<
    string,
    {
      Type?: string;
      Properties?: { VisibilityTimeout?: unknown; RedrivePolicy?: { maxReceiveCount?: unknown } };
    }
  >;
}

/**
 * Parsed documents by path and modification time: every stack a process starts reads the same
 * serverless.yml (a good part of a second of parsing each time); an edited file is read again.
 */
const parsed = new Map<string, { mtimeMs: number; doc: unknown }>();

function readYaml(file: string): unknown {
  const { mtimeMs } = statSync(file);
  const known = parsed.get(file);
  if (known?.mtimeMs === mtimeMs) return known.doc;
  // CloudFormation tags (!Ref, !GetAtt) have no meaning here: they read as their plain value.
  const doc = parse(readFileSync(file, "utf8"), { logLevel: "silent" });
  parsed.set(file, { mtimeMs, doc });
  return doc;
}

const positive = (value: unknown, fallback: number, pointer: string): number => {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new FunctionsConfigError(`expected a positive number, got ${String(value)}`, pointer);
  }
  return value;
};

/**
 * Every function's timeout and, for the SQS-fed ones, its batch size and its queue's
 * visibility timeout and maxReceiveCount, read from serverless.yml and the queue resources.
 */
export function readFunctionsConfig(
  root = repoRoot,
  queuesFile = "infra/resources/queues.yml",
): Map<string, FunctionConfig> {
  const doc = readYaml(path.join(root, "serverless.yml")) as ServerlessDoc;
  const queues = (readYaml(path.join(root, queuesFile)) as QueuesDoc).Resources ?? {};
  const defaultTimeoutS = positive(
    doc.provider?.timeout,
    LAMBDA_DEFAULT_TIMEOUT_S,
    "/provider/timeout",
  );
  const out = new Map<string, FunctionConfig>();
  for (const [name, fn] of Object.entries(doc.functions ?? {})) {
    const timeoutS = positive(fn.timeout, defaultTimeoutS, `/functions/${name}/timeout`);
    const config: FunctionConfig = { name, timeoutMs: timeoutS * 1000 };
    const sqs = fn.events?.find((e) => e.sqs !== undefined)?.sqs;
    if (sqs) {
      // `arn: !GetAtt SyncQueue.Arn` reads as "SyncQueue.Arn".
      const logicalId = String(sqs.arn ?? "").split(".")[0] ?? "";
      const resource = queues[logicalId];
      if (!resource) {
        throw new FunctionsConfigError(
          `no queue resource ${logicalId}`,
          `/functions/${name}/events`,
        );
      }
      const props = resource.Properties ?? {};
      config.queue = {
        logicalId,
        batchSize: positive(sqs.batchSize, SQS_DEFAULT_BATCH, `/functions/${name}/batchSize`),
        visibilityTimeoutMs:
          positive(
            props.VisibilityTimeout,
            SQS_DEFAULT_VISIBILITY_S,
            `/Resources/${logicalId}/VisibilityTimeout`,
          ) * 1000,
        maxReceiveCount: positive(
          props.RedrivePolicy?.maxReceiveCount,
          Number.POSITIVE_INFINITY,
          `/Resources/${logicalId}/RedrivePolicy`,
        ),
      };
    }
    out.set(name, config);
  }
  return out;
}

/** One function's configuration; throws when serverless.yml has no such function. */
export function functionConfig(
  configs: ReadonlyMap<string, FunctionConfig>,
  name: string,
): FunctionConfig {
  const config = configs.get(name);
  if (!config) throw new FunctionsConfigError(`no function ${name}`, `/functions/${name}`);
  return config;
}
