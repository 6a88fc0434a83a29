import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MetricSeries } from "#lib/app/metrics/recorder";
import type { CliIo } from "#lib/cli/io";
import { run as metricsCommand } from "#lib/cli/metrics";
import { ManualClock } from "#lib/core/clock";
import { silentLog } from "#lib/core/ports";
import { renderIcs } from "#lib/local/demo-feed";
import { type IcsServer, startIcsServer } from "#lib/local/ics-server";
import { type LocalStack, startStack } from "#lib/local/stack";
import { demoStackOptions } from "../../support/demo-stack";

const _repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const T0 = Date.parse("2025-03-10T10:59:00.400Z");
const MEETING_START = Date.parse("2025-03-10T11:02:00.000Z");

describe("the local stack's metrics", () => {
  let stack: LocalStack;
  let ics: IcsServer;

  beforeAll(async () => {
    const clock = new ManualClock(T0);
    const meeting = {
      uid: "standup",
      summary: "Standup",
      start: MEETING_START,
      end: MEETING_START + 15 * 60_000,
    };
    ics = await startIcsServer({ clock, feeds: { "/U001.ics": renderIcs([meeting], T0) } });
    stack = await startStack(
      demoStackOptions(ics.feedUrl("/U001.ics"), clock, {
        appLog: silentLog,
      }),
    );
    // The meeting's transition runs as scheduled, a minute after it starts is well past it.
    const moved = await fetch(`${stack.url}/_local/clock`, {
      method: "POST",
      body: JSON.stringify({ to: MEETING_START + 60_000 }),
    });
    expect(moved.status).toBe(200);
    await stack.settle();
  }, 60_000);
  afterAll(async () => {
    await stack?.close();
    await ics?.close();
  });

  it("serves the recorded metrics at GET /_local/metrics: set calls, and lateness with its spread", async () => {
    // Act
    const res = await fetch(`${stack.url}/_local/metrics`);
    const body = (await res.json()) as { now: number; series: MetricSeries[] };
    // Assess
    expect(res.status).toBe(200);
    const sets = body.series.find(
      (s) => s.name === "ProfileSetCalls" && s.dimensions.outcome === "set",
    );
    expect(sets).toMatchObject({ unit: "Count", total: 1, count: 1 });
    const lateness = body.series.find((s) => s.name === "TransitionLateness");
    expect(lateness).toMatchObject({ unit: "Milliseconds", count: 1 });
    // One value: it is its own p50, p99 and max, and the transition ran within the minute.
    expect(lateness?.p50).toBe(lateness?.max);
    expect(lateness?.p99).toBe(lateness?.max);
    expect(lateness?.max).toBeGreaterThanOrEqual(0);
    expect(lateness?.max).toBeLessThan(60_000);
  });

  it("prints them with `statuspilot metrics`", async () => {
    // Prepare
    const out: string[] = [];
    const err: string[] = [];
    const io: CliIo = { out: (t) => out.push(t), err: (t) => err.push(t) };
    const port = new URL(stack.url).port;
    // Act
    const code = await metricsCommand(["--port", port], io);
    // Assess
    expect(err).toEqual([]);
    expect(code).toBe(0);
    expect(out.find((l) => l.startsWith("ProfileSetCalls{outcome=set}"))).toMatch(/\s1$/);
    expect(out.find((l) => l.startsWith("TransitionLateness"))).toMatch(
      /count 1 {2}p50 \d+ ms {2}p99 \d+ ms {2}max \d+ ms$/,
    );
  });
});
