import { randomUUID } from "node:crypto";
import type { Context } from "aws-lambda";
import type { Clock } from "#lib/core/clock";

export interface LambdaContextOptions {
  functionName: string;
  clock: Clock;
  timeoutMs?: number;
  memoryLimitInMB?: number;
  region?: string;
  accountId?: string;
}

/** Local stand-ins for the AWS identity, shaped like the real ones so handlers can parse them. */
export const LOCAL_REGION = "us-east-1";
export const LOCAL_ACCOUNT_ID = "000000000000";

/**
 * A real Lambda `Context`: unique request id, ARN and log names shaped as AWS writes them, and a
 * remaining-time countdown from a deadline on the injected clock.
 */
export function createLambdaContext(options: LambdaContextOptions): Context {
  const region = options.region ?? LOCAL_REGION;
  const accountId = options.accountId ?? LOCAL_ACCOUNT_ID;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadline = options.clock.now() + timeoutMs;
  const requestId = randomUUID();
  const { functionName } = options;
  const unsupported = (what: string) => () => {
    throw new Error(`context.${what} is a legacy callback API; return a promise instead`);
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:${region}:${accountId}:function:${functionName}`,
    memoryLimitInMB: String(options.memoryLimitInMB ?? 256),
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/[$LATEST]${requestId.replaceAll("-", "")}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - options.clock.now()),
    done: unsupported("done"),
    fail: unsupported("fail"),
    succeed: unsupported("succeed"),
  };
}
