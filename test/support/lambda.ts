import type { Context } from "aws-lambda";

/** A queue worker's Lambda context; `remainingMs` answers getRemainingTimeInMillis (30 s left by default). */
export const lambdaContext = (remainingMs: () => number = () => 30_000): Context =>
  ({
    functionName: "statuspilot-test-worker",
    functionVersion: "$LATEST",
    invokedFunctionArn: "arn:aws:lambda:eu-west-1:123456789012:function:statuspilot-test-worker",
    memoryLimitInMB: "256",
    awsRequestId: "req-0001",
    getRemainingTimeInMillis: remainingMs,
  }) as unknown as Context;

/** The JSON lines (log records, EMF) among what a function wrote, in order. */
export const jsonLinesOf = (written: string[]): Array<Record<string, unknown>> =>
  written
    .join("")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
