import { describe, expect, it } from "vitest";
import { lambdaCpuShare, modelCompletions } from "#bench/support/sqs-lambda-model";

const model = {
  batchSize: 10,
  startConcurrency: 5,
  addPerMinute: 300,
  coldStartMs: 100,
  messageMs: 400,
  messageCpuMs: 0,
};

describe("the SQS to Lambda scaling model", () => {
  it("starts 5 batches of 10 at once, each paying a cold start", () => {
    // Prepare / Act
    const { done } = modelCompletions(new Array(50).fill(0), model);
    // Assess: 5 instances × 10 messages, all done after init and one message's time
    expect(done.every((d) => d === 500)).toBe(true);
  });

  it("adds one concurrent batch every 200 ms (300 a minute) while messages wait, reusing warm instances", () => {
    // Prepare / Act: 100 messages, 10 batches
    const { done } = modelCompletions(new Array(100).fill(0), model);
    // Assess, by restating the rule: batches 1-5 start at 0 (cold, done at 500); the 6th
    // instance is allowed at 200 ms, the 7th at 400 (each cold, so done at 700 and 900); at
    // 500 the first five are free again and warm: they take the last three batches (done 900).
    const finishes = [...new Set(done)].sort((a, b) => a - b);
    expect(finishes).toEqual([500, 700, 900]);
    expect(done.filter((d) => d === 500)).toHaveLength(50);
    expect(done.filter((d) => d === 700)).toHaveLength(10);
    expect(done.filter((d) => d === 900)).toHaveLength(40);
  });

  it("adds the CPU of a batch's other records to its time", () => {
    // Prepare / Act
    const { done } = modelCompletions(new Array(10).fill(0), { ...model, messageCpuMs: 20 });
    // Assess
    expect(done.every((d) => d === 100 + 400 + 9 * 20)).toBe(true);
  });
});

describe("a Lambda function's share of a vCPU", () => {
  it("is one vCPU at 1,769 MB and proportionally less below, never more than one core", () => {
    // AWS: "At 1,769 MB, a function has the equivalent of one vCPU"; CPU is proportional to
    // memory. One Node thread cannot use more than one core.
    expect(lambdaCpuShare(1769)).toBe(1);
    expect(lambdaCpuShare(512)).toBeCloseTo(0.2894, 4);
    expect(lambdaCpuShare(128)).toBeCloseTo(0.0724, 4);
    expect(lambdaCpuShare(3008)).toBe(1);
  });
});
