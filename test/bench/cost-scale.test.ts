import { describe, expect, it } from "vitest";
import { PRICES } from "#bench/support/cost-model";
import {
  bySize,
  type DayUse,
  type MeasuredUse,
  priceAt,
  scaleFigures,
  smallestDeployment,
  tickSendRequests,
} from "#bench/support/cost-scale";

// The rule, restated: a deployment pays once a day, whatever its size, for 1,440 ticks and 288
// polls (each an invocation with Lambda's 330 bytes of START/END/REPORT lines, its own summary
// line, its GB-s and its reads) and for Lambda's idle long polls of two queues (5 pollers × 2
// queues × 3 receives a minute = 43,200 requests); and once a month for the KMS key ($1). Its N
// users share that; everything else is each user's own. A month is 30 days.

const NOTHING: DayUse = {
  invocations: 0,
  gbSeconds: 0,
  reads: 0,
  readUnits: 0,
  writeUnits: 0,
  sqsRequests: 0,
  httpApiRequests: 0,
  kmsRequests: 0,
  logBytes: 0,
};

/** A deployment whose users do nothing: only the schedules' runs and the idle polls. */
const idleDeployment: MeasuredUse = {
  perUser: NOTHING,
  tickRun: { reads: 9, readUnits: 4, gbSeconds: 0.01, logBytes: 100 },
  pollRun: { reads: 8, readUnits: 8, gbSeconds: 0.05, logBytes: 100 },
};

// The deployment's month, by hand (30 days).
const keyMonth = 1;
const idleReceivesMonth = 43_200 * 30 * PRICES.sqsRequest;
const runsMonth =
  (1440 + 288) * 30 * PRICES.lambdaRequest +
  (1440 * 0.01 + 288 * 0.05) * 30 * PRICES.lambdaGbSecond +
  (1440 * 4 + 288 * 8) * 30 * PRICES.dynamoReadUnit +
  (((1440 + 288) * (100 + 330) * 30) / 1e9) * PRICES.logsIngestGb;
const deploymentMonth = keyMonth + idleReceivesMonth + runsMonth;

/** A user's own day, and its month by hand. */
const ownDay: DayUse = {
  invocations: 10,
  gbSeconds: 0.1,
  reads: 25,
  readUnits: 20,
  writeUnits: 10,
  sqsRequests: 15,
  httpApiRequests: 2,
  kmsRequests: 4,
  logBytes: 5000,
};
const ownMonth =
  30 *
  (10 * PRICES.lambdaRequest +
    0.1 * PRICES.lambdaGbSecond +
    20 * PRICES.dynamoReadUnit +
    10 * PRICES.dynamoWriteUnit +
    15 * PRICES.sqsRequest +
    2 * PRICES.httpApiRequest +
    4 * PRICES.kmsRequest +
    ((5000 + 10 * 330) / 1e9) * PRICES.logsIngestGb);
const busyDeployment: MeasuredUse = { ...idleDeployment, perUser: ownDay };

describe("the cost bench's pricing by deployment size", () => {
  it("charges a deployment of one user the key, the idle long polls and the schedules' runs in full", () => {
    // Prepare / Act
    const p = priceAt(idleDeployment, 1);

    // Assess: $1 + 43,200 × 30 × $0.40/M ($0.5184) + the runs
    expect(idleReceivesMonth).toBeCloseTo(0.5184, 10);
    expect(p.deploymentPart.kmsKey).toBeCloseTo(keyMonth, 12);
    expect(p.deploymentPart.idleReceives).toBeCloseTo(idleReceivesMonth, 12);
    expect(p.deploymentPart.scheduleRuns).toBeCloseTo(runsMonth, 12);
    expect(p.deploymentPart.total).toBeCloseTo(deploymentMonth, 12);
    expect(p.usdPerUserMonth).toBeCloseTo(deploymentMonth, 12);
    expect(p.perUserDay.sqsRequests).toBe(43_200);
    expect(p.perUserDay.reads).toBe(1440 * 9 + 288 * 8);
  });

  it("shares them among 1,000 users: a thousandth each", () => {
    // Prepare / Act
    const p = priceAt(idleDeployment, 1000);

    // Assess
    expect(p.deploymentPart.kmsKey).toBeCloseTo(0.001, 12);
    expect(p.deploymentPart.total).toBeCloseTo(deploymentMonth / 1000, 12);
    expect(p.usdPerUserMonth).toBeCloseTo(deploymentMonth / 1000, 12);
    expect(p.perUserDay.sqsRequests).toBeCloseTo(43.2, 10);
    expect(p.perUserDay.reads).toBeCloseTo((1440 * 9 + 288 * 8) / 1000, 10);
    expect(p.perUserDay.invocations).toBeCloseTo(1.728, 10);
  });

  it("charges each user their own work whatever the size, and nothing else as N grows", () => {
    // Prepare / Act
    const floor = priceAt(busyDeployment, Number.POSITIVE_INFINITY);

    // Assess
    expect(floor.usdPerUserMonth).toBeCloseTo(ownMonth, 12);
    expect(floor.deploymentPart.total).toBe(0);
    expect(floor.perUserDay.sqsRequests).toBe(15);
    expect(floor.perUserDay.reads).toBe(25);
  });

  it("is a + b/N: the user's own month plus the deployment's month over N", () => {
    for (const n of [1, 7, 250, 1000, 2500, 100_000]) {
      // Prepare / Act
      const p = priceAt(busyDeployment, n);

      // Assess
      expect(p.usdPerUserMonth).toBeCloseTo(ownMonth + deploymentMonth / n, 12);
      expect(p.deploymentPart.total).toBeCloseTo(deploymentMonth / n, 12);
      expect(p.perUserDay.sqsRequests).toBeCloseTo(15 + 43_200 / n, 9);
      expect(p.perUserDay.reads).toBeCloseTo(25 + (1440 * 9 + 288 * 8) / n, 9);
      // Written per user-day as the service breakdown: the months' sum over 30 days.
      const byService = Object.values(p.usdPerUserDay).reduce((a, b) => a + b, 0);
      expect(byService * 30).toBeCloseTo(p.usdPerUserMonth, 12);
    }
  });

  it("finds the smallest deployment meeting a target from a + b/N", () => {
    // SQS: 15 + 43,200/N ≤ 20 from N = 43,200 / 5 = 8,640 users.
    const sqs = smallestDeployment(busyDeployment, (p) => p.perUserDay.sqsRequests, 20);
    expect(sqs).toBe(8640);
    // US$: own + deployment/N ≤ own + $0.001 from N = ceil(deploymentMonth / 0.001).
    const target = ownMonth + 0.001;
    const usd = smallestDeployment(busyDeployment, (p) => p.usdPerUserMonth, target);
    expect(usd).toBe(Math.ceil(deploymentMonth / 0.001));
    expect(priceAt(busyDeployment, usd as number).usdPerUserMonth).toBeLessThanOrEqual(target);
    expect(priceAt(busyDeployment, (usd as number) - 1).usdPerUserMonth).toBeGreaterThan(target);
    // Below the user's own work, no deployment is large enough.
    expect(smallestDeployment(busyDeployment, (p) => p.perUserDay.sqsRequests, 15)).toBeNull();
  });

  it("prices the run's own size beside the listed ones, smallest first", () => {
    // Prepare / Act
    const rows = bySize(busyDeployment, 4000, [10_000, 250]);

    // Assess
    expect(rows.map((r) => r.users)).toEqual([250, 4000, 10_000]);
    expect(rows[0]?.usdPerDeploymentPart).toBeCloseTo(deploymentMonth / 250, 12);
    expect(rows[1]?.sqsRequestsPerUserDay).toBeCloseTo(15 + 43_200 / 4000, 9);
  });

  it("reports the targets' sizes, the floor and the fixed charges for the result", () => {
    // Prepare / Act: a user whose own work costs $0.001 and makes 10 SQS requests a day
    const cheap: MeasuredUse = {
      ...idleDeployment,
      perUser: { ...NOTHING, sqsRequests: 10, kmsRequests: 0.001 / 30 / PRICES.kmsRequest },
    };
    const figures = scaleFigures(cheap, 1000);
    const ownUsd = 0.001 + 30 * 10 * PRICES.sqsRequest;

    // Assess: US$ ≤ 0.002 once deploymentMonth / N ≤ 0.002 - ownUsd; SQS ≤ 20 from 4,320 users.
    expect(figures.targetsMetFromUsers.usd).toBe(Math.ceil(deploymentMonth / (0.002 - ownUsd)));
    expect(figures.targetsMetFromUsers.sqs).toBe(4320);
    expect(figures.perUserFloor.usdPerUserMonth).toBeCloseTo(ownUsd, 6);
    expect(figures.perUserFloor.sqsRequestsPerUserDay).toBe(10);
    expect(figures.fixedChargesPerUserMonth.kmsKey).toBe(0.001);
    expect(figures.fixedChargesPerUserMonth.total).toBeCloseTo(deploymentMonth / 1000, 6);
    expect(figures.byDeploymentSize.map((r) => r.users)).toEqual([
      250, 1000, 2500, 10_000, 100_000,
    ]);
  });

  it("prices the tick's transition sends as a deployment's tick makes them: ten to a request", () => {
    // A tick run found 3 transitions among 10 simulated users, in 10 user-days. A deployment of
    // N users (same meeting pattern) finds 3N/10 in that run: ceil(3N/100) requests, per day,
    // shared by N users.
    const finds = { runs: [{ found: 3, amongUsers: 10 }], userDays: 10 };
    // N = 1,000: 300 transitions, 30 requests, 0.03 a user-day.
    expect(tickSendRequests(finds, 1000)).toBeCloseTo(0.03, 12);
    // N = 25: 7.5 transitions, still one request, 0.04 a user-day.
    expect(tickSendRequests(finds, 25)).toBeCloseTo(0.04, 12);
    // N = 1: a request for 0.3 of a transition.
    expect(tickSendRequests(finds, 1)).toBeCloseTo(1, 12);
    // As N grows: a tenth of a request per transition (0.3 a day over 10 user-days).
    expect(tickSendRequests(finds, Number.POSITIVE_INFINITY)).toBeCloseTo(0.03, 12);
    expect(tickSendRequests(undefined, 1000)).toBe(0);
    // And the pricing adds them to the user's own requests and the idle polls' share.
    const withTick: MeasuredUse = { ...busyDeployment, tickFinds: finds };
    expect(priceAt(withTick, 1000).perUserDay.sqsRequests).toBeCloseTo(15 + 43.2 + 0.03, 9);
  });

  it("finds the smallest deployment meeting a target with the tick's rounded-up requests in", () => {
    // Every user's tick finds one transition a day: a deployment's run finds N, in ceil(N/10)
    // requests. SQS a user-day: 15 + 43,200/N + ceil(N/10)/N ≤ 20. At N = 8,817:
    // 4.89962 + 882/8,817 (0.10003) = 4.99965, within; at N = 8,816: 4.90018 + 882/8,816
    // (0.10005) = 5.00023, above.
    const withTick: MeasuredUse = {
      ...busyDeployment,
      tickFinds: { runs: [{ found: 10, amongUsers: 10 }], userDays: 10 },
    };
    expect(smallestDeployment(withTick, (p) => p.perUserDay.sqsRequests, 20)).toBe(8817);
  });
});
