import { describe, expect, it } from "vitest";
import { createLambdaContext } from "#devstack/lambda-context";
import { ManualClock } from "#lib/core/clock";

describe("createLambdaContext", () => {
  it("counts the remaining time down from the deadline on the injected clock", () => {
    // Prepare
    const clock = new ManualClock(1_000_000);
    const context = createLambdaContext({ functionName: "transition", clock, timeoutMs: 10_000 });
    // Act
    clock.advance(4_000);
    const remaining = context.getRemainingTimeInMillis();
    clock.advance(20_000);
    // Assess
    expect(remaining).toBe(6_000);
    expect(context.getRemainingTimeInMillis()).toBe(0);
  });

  it("names the function, its ARN and log group as AWS does, with a fresh request id each time", () => {
    // Prepare
    const clock = new ManualClock(0);
    // Act
    const a = createLambdaContext({ functionName: "serviceEvents", clock, memoryLimitInMB: 512 });
    const b = createLambdaContext({ functionName: "serviceEvents", clock });
    // Assess
    expect(a).toMatchObject({
      functionName: "serviceEvents",
      functionVersion: "$LATEST",
      invokedFunctionArn: "arn:aws:lambda:us-east-1:000000000000:function:serviceEvents",
      memoryLimitInMB: "512",
      logGroupName: "/aws/lambda/serviceEvents",
      callbackWaitsForEmptyEventLoop: true,
    });
    expect(a.awsRequestId).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/,
    );
    expect(a.awsRequestId).not.toBe(b.awsRequestId);
    expect(() => a.succeed("x")).toThrow(/legacy/);
  });
});
