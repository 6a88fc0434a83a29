import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_RECEIVE_COUNT } from "#functions/shared/queue";
import { functionEntries } from "#infra/build";
import { METRICS } from "#lib/app/metrics/catalog";
import {
  type CfnResource,
  type PackagedStack,
  packageStack,
  productFunctions,
  repoRoot,
} from "../../support/osls-package";

// The oracles below are the production-readiness requirements themselves (thresholds, metric
// names, log fields), written here by hand, never read from serverless.yml or infra/resources.
/** CloudFormation's region variable, left in the dashboard body for Fn::Sub. */
const REGION_VARIABLE = ["$", "{AWS::Region}"].join("");
let stack: PackagedStack | undefined;
let resources: Record<string, CfnResource> = {};

const ofType = (type: string) => Object.entries(resources).filter(([, r]) => r.Type === type);
const props = (id: string) => resources[id]?.Properties ?? {};

interface Alarm {
  id: string;
  AlarmName: string;
  Namespace: string;
  MetricName: string;
  Dimensions: Array<{ Name: string; Value: unknown }>;
  Statistic?: string;
  ExtendedStatistic?: string;
  Unit?: string;
  Period: number;
  EvaluationPeriods: number;
  DatapointsToAlarm?: number;
  Threshold: number;
  ComparisonOperator: string;
  TreatMissingData?: string;
  AlarmActions: unknown[];
  OKActions?: unknown[];
}
const alarms = (): Alarm[] =>
  ofType("AWS::CloudWatch::Alarm").map(([id, r]) => ({ id, ...(r.Properties as object) }) as Alarm);
const alarmsOn = (namespace: string, metric: string) =>
  alarms().filter((a) => a.Namespace === namespace && a.MetricName === metric);
const dimension = (a: Alarm, name: string) => a.Dimensions.find((d) => d.Name === name)?.Value;
/** The `service` dimension the functions' metrics carry (Powertools' default dimension). */
const serviceName = () =>
  (props("TickLambdaFunction").Environment as { Variables: Record<string, unknown> } | undefined)
    ?.Variables.POWERTOOLS_SERVICE_NAME;

describe("the packaged stack's limits, alarms and dashboard", () => {
  beforeAll(async () => {
    stack = await packageStack();
    resources = stack.resources;
  }, 120_000);
  afterAll(async () => {
    await stack?.remove();
  });

  it("throttles every HTTP route and writes JSON access logs to a retained group, no headers or bodies", () => {
    // Act
    const stage = props("HttpApiStage");
    const routeSettings = stage.DefaultRouteSettings as Record<string, number>;
    const access = stage.AccessLogSettings as { DestinationArn: unknown; Format: string };
    const format = JSON.parse(access.Format) as Record<string, string>;
    const groupId = (access.DestinationArn as { "Fn::GetAtt": [string, string] })["Fn::GetAtt"][0];
    // Assess
    expect(routeSettings.ThrottlingRateLimit).toBeGreaterThan(0);
    expect(routeSettings.ThrottlingBurstLimit).toBeGreaterThanOrEqual(
      routeSettings.ThrottlingRateLimit ?? Number.POSITIVE_INFINITY,
    );
    expect(resources[groupId]?.Type).toBe("AWS::Logs::LogGroup");
    expect(props(groupId).RetentionInDays).toBeGreaterThan(0);
    for (const field of ["requestId", "ip", "routeKey", "status", "latency"]) {
      expect(format[field], field).toMatch(/^\$context\.[A-Za-z.]+$/);
    }
    expect(format.ip).toBe("$context.identity.sourceIp");
    expect(format.latency).toMatch(/Latency$/);
    expect(access.Format).not.toMatch(/header|body|authorizer|user-agent|userAgent|path/i);
  });

  it("reserves concurrency so a sync flood cannot starve the transition worker", () => {
    // Prepare
    const reserved = (fn: string) =>
      props(`${fn}LambdaFunction`).ReservedConcurrentExecutions as number | undefined;
    const mapping = (fn: string) =>
      ofType("AWS::Lambda::EventSourceMapping").find(
        ([id]) => id.startsWith(fn) && id.includes("EventSourceMapping"),
      )?.[1].Properties.ScalingConfig as { MaximumConcurrency?: number } | undefined;
    const transition = reserved("TransitionWorker") ?? 0;
    const sync = reserved("SyncWorker") ?? 0;
    // Assess: both workers are bounded; the transition worker keeps more than the sync worker.
    expect(sync).toBeGreaterThan(0);
    expect(transition).toBeGreaterThan(sync);
    // Each queue's poller never invokes past the reservation (throttled batches spend receives).
    for (const fn of ["TransitionWorker", "SyncWorker"]) {
      const max = mapping(fn)?.MaximumConcurrency;
      expect(max, fn).toBeGreaterThanOrEqual(2);
      expect(max, fn).toBeLessThanOrEqual(reserved(fn) ?? 0);
    }
    expect(reserved("Tick")).toBeGreaterThanOrEqual(1);
    // AWS keeps 100 of the default 1,000 account concurrency unreserved.
    const total = ofType("AWS::Lambda::Function").reduce(
      (sum, [, f]) => sum + Number(f.Properties.ReservedConcurrentExecutions ?? 0),
      0,
    );
    expect(total).toBeLessThanOrEqual(900);
  });

  it("notifies one topic, created by the stack when the alarmTopicArn param is unset", () => {
    // Prepare
    const notify = [{ "Fn::If": ["CreateAlarmTopic", { Ref: "AlarmTopic" }, ""] }];
    // Assess
    expect(stack?.conditions.CreateAlarmTopic).toEqual({ "Fn::Equals": ["", ""] });
    expect(resources.AlarmTopic?.Type).toBe("AWS::SNS::Topic");
    expect(resources.AlarmTopic?.Condition).toBe("CreateAlarmTopic");
    expect(stack?.outputs.AlarmTopicArn?.Value).toEqual(notify[0]);
    expect(alarms().length).toBeGreaterThan(0);
    for (const alarm of alarms()) {
      expect(alarm.AlarmActions, alarm.id).toEqual(notify);
      expect(alarm.OKActions, alarm.id).toEqual(notify);
    }
  });

  it("alarms on any message in either dead-letter queue", () => {
    const deadLetterQueues = ofType("AWS::SQS::Queue")
      .filter(([id]) => id.includes("DeadLetter"))
      .map(([id]) => id);
    const watched = alarmsOn("AWS/SQS", "ApproximateNumberOfMessagesVisible");
    expect(deadLetterQueues).toHaveLength(2);
    expect(
      watched.map((a) => (dimension(a, "QueueName") as { "Fn::GetAtt": string[] })["Fn::GetAtt"]),
    ).toEqual(expect.arrayContaining(deadLetterQueues.map((id) => [id, "QueueName"])));
    for (const a of watched) {
      expect([a.Threshold, a.ComparisonOperator, a.Statistic]).toEqual([
        0,
        "GreaterThanThreshold",
        "Maximum",
      ]);
    }
  });

  it("alarms on every function's errors and throttles", () => {
    // The product's functions (not the one the stack runs only at deploy, whose failure fails
    // the deploy itself).
    const functions = productFunctions(resources).map(([id]) => id);
    expect(functions).toHaveLength(Object.keys(functionEntries).length);
    for (const metric of ["Errors", "Throttles"]) {
      const watched = alarmsOn("AWS/Lambda", metric);
      const refs = watched.map((a) => (dimension(a, "FunctionName") as { Ref: string }).Ref);
      expect(refs.sort(), metric).toEqual([...functions].sort());
      for (const a of watched) {
        expect([a.Threshold, a.ComparisonOperator, a.Statistic], a.id).toEqual([
          0,
          "GreaterThanThreshold",
          "Sum",
        ]);
        expect(a.Period * a.EvaluationPeriods, a.id).toBeLessThanOrEqual(300);
        expect(a.TreatMissingData, a.id).toBe("notBreaching");
      }
    }
  });

  it("alarms on p99 transition lateness over 5 s for 5 minutes, quiet until the metric exists", () => {
    const [alarm, ...others] = alarmsOn("Statuspilot", "TransitionLateness");
    expect(others).toHaveLength(0);
    expect(alarm).toBeDefined();
    if (!alarm) return;
    expect(alarm.ExtendedStatistic).toBe("p99");
    expect(alarm.Unit).toBe("Milliseconds");
    expect([alarm.Threshold, alarm.ComparisonOperator]).toEqual([5000, "GreaterThanThreshold"]);
    expect(alarm.Period * alarm.EvaluationPeriods).toBe(300);
    expect(alarm.DatapointsToAlarm ?? alarm.EvaluationPeriods).toBe(alarm.EvaluationPeriods);
    expect(alarm.TreatMissingData).toBe("notBreaching");
    expect(dimension(alarm, "service")).toBe(serviceName());
    expect(serviceName()).toBe("statuspilot");
  });

  it("alarms on a rise in users needing re-authorisation, quiet until the metric exists", () => {
    const [alarm, ...others] = alarmsOn("Statuspilot", "UsersNeedingReauth");
    expect(others).toHaveLength(0);
    expect(alarm?.Statistic).toBe("Sum");
    expect(alarm?.Threshold).toBeGreaterThan(0);
    expect(alarm?.ComparisonOperator).toMatch(/^GreaterThan/);
    expect(alarm?.TreatMissingData).toBe("notBreaching");
    expect(alarm && dimension(alarm, "service")).toBe(serviceName());
  });

  it("alarms when the tick has not run for 3 to 5 minutes, missing data counting as not run", () => {
    const [alarm, ...others] = alarmsOn("AWS/Lambda", "Invocations");
    expect(others).toHaveLength(0);
    expect(alarm && dimension(alarm, "FunctionName")).toEqual({ Ref: "TickLambdaFunction" });
    expect([alarm?.Statistic, alarm?.Threshold, alarm?.ComparisonOperator]).toEqual([
      "Sum",
      1,
      "LessThanThreshold",
    ]);
    const window =
      (alarm?.Period ?? 0) * (alarm?.DatapointsToAlarm ?? alarm?.EvaluationPeriods ?? 0);
    expect(window).toBeGreaterThanOrEqual(180);
    expect(window).toBeLessThanOrEqual(300);
    expect(alarm?.TreatMissingData).toBe("breaching");
  });

  it("draws one dashboard: lateness p50/p99, profile sets by outcome, errors, throttles, DLQ depth", () => {
    // Prepare
    const dashboards = ofType("AWS::CloudWatch::Dashboard");
    expect(dashboards).toHaveLength(1);
    const body = dashboards[0]?.[1].Properties.DashboardBody as { "Fn::Sub": string };
    const parsed = JSON.parse(body["Fn::Sub"].replaceAll(REGION_VARIABLE, "eu-west-1")) as {
      widgets: Array<{ type: string; properties: { metrics?: unknown[][]; query?: string } }>;
    };
    const lines = parsed.widgets.flatMap((w) => w.properties.metrics ?? []);
    /** Each metric line with CloudWatch's "..." (the previous line's leading parts) expanded. */
    const expanded: unknown[][] = [];
    for (const line of lines) {
      const isOptions = (part: unknown) => typeof part === "object";
      const previous = (expanded.at(-1) ?? []).filter((p) => !isOptions(p));
      const own = line.filter((p) => !isOptions(p));
      const tail = own.slice(1);
      expanded.push(
        own[0] === "..."
          ? [
              ...previous.slice(0, previous.length - tail.length),
              ...tail,
              ...line.filter(isOptions),
            ]
          : line,
      );
    }
    const has = (...parts: unknown[]) =>
      expanded.some((line) => parts.every((p, i) => JSON.stringify(line[i]) === JSON.stringify(p)));
    const statOf = (line: unknown[]) =>
      (line.find((p) => typeof p === "object") as { stat?: string } | undefined)?.stat;
    const functionNames = productFunctions(resources).map(([, f]) => f.Properties.FunctionName);
    const queueNames = ofType("AWS::SQS::Queue")
      .filter(([id]) => id.includes("DeadLetter"))
      .map(([, q]) => q.Properties.QueueName);
    // Assess
    const lateness = expanded.filter(
      (l) => l[0] === "Statuspilot" && l[1] === "TransitionLateness",
    );
    expect(lateness.map(statOf).sort()).toEqual(["p50", "p99"]);
    for (const name of functionNames) {
      expect(has("AWS/Lambda", "Errors", "FunctionName", name), String(name)).toBe(true);
      expect(has("AWS/Lambda", "Throttles", "FunctionName", name), String(name)).toBe(true);
    }
    for (const name of queueNames) {
      expect(has("AWS/SQS", "ApproximateNumberOfMessagesVisible", "QueueName", name)).toBe(true);
    }
    // users.profile.set calls, split into set, clear and refused (the metric's `outcome`)
    for (const outcome of ["set", "clear", "refused"]) {
      expect(
        has("Statuspilot", "ProfileSetCalls", "service", "statuspilot", "outcome", outcome),
        outcome,
      ).toBe(true);
    }
    // Every Statuspilot line names a metric the code emits, split only by that metric's dimension.
    const custom = expanded.filter((l) => l[0] === "Statuspilot");
    expect(custom.length).toBeGreaterThan(0);
    for (const line of custom) {
      const parts = line.filter((p) => typeof p !== "object");
      const metric = METRICS[String(parts[1]) as keyof typeof METRICS];
      expect(metric, String(parts[1])).toBeDefined();
      const dimensions = parts.slice(2).filter((_, i) => i % 2 === 0);
      const own = metric !== undefined && "dimension" in metric ? [metric.dimension] : [];
      expect(dimensions, String(parts[1])).toEqual(["service", ...own]);
    }
  });

  it("alarms only on Statuspilot metrics the code emits, in the unit it emits them", () => {
    // The code's metrics and their units: lib/app/metrics/catalog.ts (tests there check each emission).
    const custom = alarms().filter((a) => a.Namespace === "Statuspilot");
    expect(custom.map((a) => a.MetricName).sort()).toEqual([
      "TransitionLateness",
      "UsersNeedingReauth",
    ]);
    for (const alarm of custom) {
      const metric = METRICS[alarm.MetricName as keyof typeof METRICS];
      expect(metric, alarm.id).toBeDefined();
      expect(alarm.Unit, alarm.id).toBe(metric?.unit);
      // Powertools' default dimension, and none the metric is split by.
      expect(
        alarm.Dimensions.map((d) => d.Name),
        alarm.id,
      ).toEqual(["service"]);
      expect(metric && "dimension" in metric, alarm.id).toBe(false);
    }
  });

  it("dead-letters after as many receives as the queue workers count as the last one", () => {
    const redrives = ofType("AWS::SQS::Queue")
      .map(([id, q]) => [id, q.Properties.RedrivePolicy] as const)
      .filter(([, redrive]) => redrive !== undefined);
    expect(redrives).toHaveLength(2);
    for (const [id, redrive] of redrives) {
      expect((redrive as { maxReceiveCount: number }).maxReceiveCount, id).toBe(MAX_RECEIVE_COUNT);
    }
  });

  it("gives every alarm a runbook entry in infra/DEPLOY.md", async () => {
    const runbook = await readFile(path.join(repoRoot, "infra/DEPLOY.md"), "utf8");
    const functions = Object.keys(functionEntries);
    for (const alarm of alarms()) {
      const suffix = alarm.AlarmName.replace(/^statuspilot-test-/, "");
      const generic = functions.reduce(
        (name, fn) => name.replace(new RegExp(`^${fn}-(errors|throttles)$`), "<function>-$1"),
        suffix,
      );
      expect(runbook, alarm.id).toContain(`\`${generic}\``);
    }
  });
});
