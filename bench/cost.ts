import { expand } from "../lib/calendar/expand";
import { type DemoEvent, renderIcs } from "../lib/local/demo-feed";
import type { Invocation } from "./support/lambda-meter";
import { type BenchUser, startBenchStack } from "./support/stack";
import { formatTable, quantile, round, sum } from "./support/stats";
import { benchUserId } from "./support/workspace";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** A Monday, 00:00 UTC; the simulation starts here (400 ms off the second, as schedules are). */
const MONTH_START = Date.parse("2026-03-02T00:00:00Z");

/** AWS list prices, us-east-1, on-demand, as of 2025 (US$). */
export const PRICES = {
  lambdaRequest: 0.2 / 1e6,
  /** arm64, as serverless.yml deploys. */
  lambdaGbSecond: 0.0000133334,
  dynamoReadUnit: 0.125 / 1e6,
  dynamoWriteUnit: 0.625 / 1e6,
  /** Standard queue; each message costs a send, a receive and a delete. */
  sqsRequest: 0.4 / 1e6,
  httpApiRequest: 1.0 / 1e6,
  kmsRequest: 0.03 / 1e4,
} as const;
/** serverless.yml's provider memorySize. */
const MEMORY_GB = 0.5;
/** An instance idle this long is assumed reclaimed, so the next invocation is a cold start. */
const WARM_MS = 15 * MINUTE;

export interface CostOptions {
  users: number;
  days: number;
  /** Users of the deployment the fixed tick and poll costs are shared by (1,000 by default). */
  deploymentUsers?: number;
  /** Cold module-init time per function (from the bundle benchmark); 300 ms when unknown. */
  initMs?: Record<string, number>;
}

/** One user's calendar: meetings shifted by `shift` minutes so users do not all move at once. */
function eventsFor(i: number, days: number, upTo: number): DemoEvent[] {
  const shift = (i % 4) * 15 * MINUTE;
  const user = benchUserId(i);
  const events: DemoEvent[] = [];
  const at = (day: number, h: number, m = 0) => MONTH_START + day * DAY + h * HOUR + m * MINUTE;
  for (let d = 0; d < days; d++) {
    const weekday = d % 7; // 0 = Monday
    if (weekday >= 5 || (d >= 14 && d <= 18)) continue; // weekend; out-of-office week
    const ev = (name: string, h: number, m: number, minutes: number, summary = "Meeting") => ({
      uid: `${name}-${d}-${user}@bench`,
      summary,
      start: at(d, h, m) + shift,
      end: at(d, h, m) + shift + minutes * MINUTE,
      busyStatus: "BUSY" as const,
    });
    const moved = weekday === 1 && at(d, 8) <= upTo; // Tuesdays at 08:00 the last one moves
    const cancelled = weekday === 3 && at(d, 11, 15) + shift <= upTo; // Thursdays, mid-meeting
    events.push(
      ev("standup", 9, 30, 30),
      ev("sync", 10, 0, 30), // back to back with the stand-up
      { ...ev("review", 11, 0, 60), ...(cancelled ? { cancelled: true } : {}) },
      ev("lunch-talk", 13, 0, 30),
      ev("planning", 14, 0, 45),
      ev("one-on-one", 16, moved ? 30 : 0, 30),
    );
    if (weekday === 2) events.push(ev("focus", 14, 45, 75, "Focus time"));
  }
  if (days > 18) {
    events.push({
      uid: `ooo-${user}@bench`,
      summary: "Out of office",
      start: MONTH_START + 14 * DAY,
      end: MONTH_START + 19 * DAY,
      busyStatus: "OOF",
    });
  }
  return events;
}

/** Busy blocks of a calendar after merging back-to-back runs of the same status. */
function busyBlocks(events: DemoEvent[]): number {
  const live = events
    .filter((e) => !e.cancelled)
    .map((e) => ({ start: e.start, end: e.end, kind: e.summary }))
    .sort((a, b) => a.start - b.start);
  let blocks = 0;
  let last: { end: number; kind: string } | undefined;
  for (const e of live) {
    if (!last || e.start > last.end || e.kind !== last.kind) blocks++;
    last = { end: Math.max(e.end, last && e.start <= last.end ? last.end : 0), kind: e.kind };
  }
  return blocks;
}

export interface CostResult {
  users: number;
  days: number;
  userDays: number;
  busyBlocksPerUserDay: number;
  profileSetsPerUserDay: number;
  setsPerBusyBlock: number;
  readsPerUserDay: number;
  writesPerUserDay: number;
  readUnitsPerUserDay: number;
  writeUnitsPerUserDay: number;
  queueMessagesPerUserDay: number;
  invocationsPerUserDay: Record<string, number>;
  invocationsTotalPerUserDay: number;
  /** With SQS batching: messages visible at the same instant share an invocation. */
  invocationsBatchedPerUserDay: number;
  gbSecondsPerUserDay: number;
  usdPerUserMonth: number;
  usdBreakdown: Record<string, number>;
  poll: {
    /** Real time of one run (fetch and expand the feed) on this machine. */
    runMs: number;
    invocationsPerUserDay: number;
    profileSetsPerUserDay: number;
    profileSetsEveryMinutePerUserDay: number;
    gbSecondsPerUserDay: number;
    usdPerUserMonth: number;
  };
  fewerInvocations: number;
  idleTickReads: number;
  deploymentUsers: number;
  wallS: number;
}

/** One poll-bot run: fetch the whole feed and expand today's events, median of 15 (warm). */
async function pollWorkMs(url: string, at: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < 15; i++) {
    const t0 = performance.now();
    const text = await (await fetch(url)).text();
    expand(text, { from: at - DAY, to: at, userZone: "UTC" });
    times.push(performance.now() - t0);
  }
  return quantile(times, 0.5);
}

const batched = (list: Invocation[], fn: string, size: number): number => {
  const byInstant = new Map<number, number>();
  for (const i of list) if (i.fn === fn) byInstant.set(i.at, (byInstant.get(i.at) ?? 0) + 1);
  return sum([...byInstant.values()].map((n) => Math.ceil(n / size)));
};

/**
 * A month of realistic calendars for `users` users on the local stack (simulated clock): six
 * meetings a weekday with a back-to-back pair, a weekly focus block, a week out of office, a
 * meeting moved every Tuesday and one cancelled while showing every Thursday (each edit pushed
 * through the signed generic hook). Everything is counted, then priced per user-month.
 */
export async function runCostBench(options: CostOptions): Promise<CostResult> {
  const t0 = performance.now();
  const { users: n, days } = options;
  const start = MONTH_START + 400;
  const end = MONTH_START + days * DAY;
  const feed = (i: number, upTo: number) => renderIcs(eventsFor(i, days, upTo), start);
  const users: BenchUser[] = Array.from({ length: n }, (_, i) => ({
    user: benchUserId(i),
    tz: "UTC",
    ics: feed(i, start),
  }));
  // Ticks that can find something due: a calendar edge in the next 70 s, or just after an edit.
  const edgeMinutes = new Set<number>();
  for (let i = 0; i < n; i++) {
    for (const e of [...eventsFor(i, days, 0), ...eventsFor(i, days, end)]) {
      edgeMinutes.add(Math.floor(e.start / MINUTE));
      edgeMinutes.add(Math.floor(e.end / MINUTE));
    }
  }
  const edits: number[] = [];
  for (let d = 0; d < days; d++) {
    if (d % 7 === 1 && !(d >= 14 && d <= 18)) edits.push(MONTH_START + d * DAY + 8 * HOUR);
    if (d % 7 === 3 && !(d >= 14 && d <= 18)) {
      for (const s of new Set(Array.from({ length: Math.min(n, 4) }, (_, i) => i * 15))) {
        edits.push(MONTH_START + d * DAY + 11 * HOUR + 15 * MINUTE + s * MINUTE);
      }
    }
  }
  edits.sort((a, b) => a - b);
  for (const e of edits) for (let m = 0; m < 3; m++) edgeMinutes.add(Math.floor(e / MINUTE) + m);
  let measuringIdle = true;
  const tickFilter = (at: number) => {
    if (measuringIdle) return true;
    const m = Math.floor(at / MINUTE);
    return edgeMinutes.has(m) || edgeMinutes.has(m + 1) || edgeMinutes.has(m - 1);
  };

  const bench = await startBenchStack({ start, users, hooks: true, tickFilter });
  try {
    // The cost of a tick that finds nothing: three ticks before anything is due.
    bench.resetMeters();
    await bench.advanceTo(start + 3 * MINUTE);
    const idle = bench.meters().dynamo;
    const idleTickReads = idle.reads / 3;
    const idleTickReadUnits = idle.readUnits / 3;
    measuringIdle = false;
    bench.resetMeters();
    for (const at of edits) {
      await bench.advanceTo(at);
      for (let i = 0; i < n; i++) {
        const text = feed(i, at);
        if (text !== feed(i, at - 1)) {
          bench.setFeed(benchUserId(i), text);
          await bench.push(benchUserId(i));
        }
      }
    }
    await bench.advanceTo(end);
    const m = bench.meters();
    const userDays = n * ((end - (start + 3 * MINUTE)) / DAY);
    const perUserDay = (x: number) => x / userDays;
    const byFn: Record<string, number> = {};
    for (const i of m.invocations) byFn[i.fn] = (byFn[i.fn] ?? 0) + 1;
    // The tick and the poll run per deployment, not per user: count them as the deployment's
    // share (1,440 and 288 a day over `deploymentUsers`), at the DynamoDB cost of an idle run.
    const deployment = options.deploymentUsers ?? 1000;
    const scheduleRuns = (byFn.tick ?? 0) + (byFn.poll ?? 0);
    byFn.tick = (1440 * userDays) / deployment;
    byFn.poll = (288 * userDays) / deployment;
    const variableReads = m.dynamo.reads - scheduleRuns * idleTickReads;
    const variableReadUnits = m.dynamo.readUnits - scheduleRuns * idleTickReadUnits;
    const fixedReads = (byFn.tick + byFn.poll) * idleTickReads;
    const fixedReadUnits = (byFn.tick + byFn.poll) * idleTickReadUnits;
    const invocationsTotal = sum(Object.values(byFn));
    const batchedTotal =
      invocationsTotal -
      (byFn.transitionWorker ?? 0) -
      (byFn.syncWorker ?? 0) +
      batched(m.invocations, "transitionWorker", 10) +
      batched(m.invocations, "syncWorker", 5);
    // GB-seconds: handler time as measured here, plus module init at each cold start.
    const lastAt = new Map<string, number>();
    let coldMs = 0;
    for (const inv of [...m.invocations].sort((a, b) => a.at - b.at)) {
      const prev = lastAt.get(inv.fn);
      if (prev === undefined || inv.at - prev > WARM_MS) coldMs += options.initMs?.[inv.fn] ?? 300;
      lastAt.set(inv.fn, inv.at);
    }
    const tickMs = quantile(
      m.invocations.filter((i) => i.fn === "tick").map((i) => i.ms),
      0.5,
    );
    const handlerMs =
      sum(m.invocations.filter((i) => i.fn !== "tick" && i.fn !== "poll").map((i) => i.ms)) +
      (byFn.tick + byFn.poll) * tickMs;
    const gbSeconds = ((handlerMs + coldMs) / 1000) * MEMORY_GB;
    const sets = m.profileSets.filter((c) => c.outcome === "ok");
    const blocks = sum(Array.from({ length: n }, (_, i) => busyBlocks(eventsFor(i, days, end))));
    const sqsMessages = m.queueMessages.transition + m.queueMessages.sync;
    const httpRequests = (byFn.serviceEvents ?? 0) + (byFn.calendarHooks ?? 0);
    const month = 30;
    const usd = {
      lambda:
        perUserDay(batchedTotal) * PRICES.lambdaRequest +
        perUserDay(gbSeconds) * PRICES.lambdaGbSecond,
      dynamodb:
        perUserDay(variableReadUnits + fixedReadUnits) * PRICES.dynamoReadUnit +
        perUserDay(m.dynamo.writeUnits) * PRICES.dynamoWriteUnit,
      sqs: perUserDay(sqsMessages * 3) * PRICES.sqsRequest,
      httpApi: perUserDay(httpRequests) * PRICES.httpApiRequest,
      // The user's token is opened (KMS Decrypt) for each set, a channel secret for each hook.
      kms: perUserDay(m.profileSets.length + (byFn.calendarHooks ?? 0)) * PRICES.kmsRequest,
    };
    const usdPerUserMonth = sum(Object.values(usd)) * month;

    // The poll-every-minute baseline: one invocation per user-minute that fetches and parses
    // the calendar (timed here on the same feed), then sets the status when it changed and
    // clears it when the block ends: no expiration, no database, no queue.
    const pollMs = await pollWorkMs(bench.ics.feedUrl(`/cal/${benchUserId(0)}.ics`), end);
    const pollInvocations = 1440;
    const pollGbSeconds = pollInvocations * (pollMs / 1000) * MEMORY_GB;
    const busyMinutes = sum(
      Array.from({ length: n }, (_, i) =>
        sum(
          eventsFor(i, days, end)
            .filter((e) => !e.cancelled)
            .map((e) => (e.end - e.start) / MINUTE),
        ),
      ),
    );
    const pollSets = (2 * blocks) / userDays;
    const pollUsd =
      (pollInvocations * PRICES.lambdaRequest + pollGbSeconds * PRICES.lambdaGbSecond) * month;

    const invocationsPerUserDay = Object.fromEntries(
      Object.entries(byFn).map(([k, v]) => [k, round(perUserDay(v), 2)]),
    );
    return {
      users: n,
      days,
      userDays: round(userDays, 2),
      busyBlocksPerUserDay: round(blocks / userDays, 2),
      profileSetsPerUserDay: round(perUserDay(m.profileSets.length), 2),
      setsPerBusyBlock: round(sets.length / blocks, 2),
      readsPerUserDay: round(perUserDay(variableReads + fixedReads), 1),
      writesPerUserDay: round(perUserDay(m.dynamo.writes), 1),
      readUnitsPerUserDay: round(perUserDay(variableReadUnits + fixedReadUnits), 1),
      writeUnitsPerUserDay: round(perUserDay(m.dynamo.writeUnits), 1),
      queueMessagesPerUserDay: round(perUserDay(sqsMessages), 1),
      invocationsPerUserDay,
      invocationsTotalPerUserDay: round(perUserDay(invocationsTotal), 1),
      invocationsBatchedPerUserDay: round(perUserDay(batchedTotal), 1),
      gbSecondsPerUserDay: round(perUserDay(gbSeconds), 3),
      usdPerUserMonth: round(usdPerUserMonth, 5),
      usdBreakdown: Object.fromEntries(
        Object.entries(usd).map(([k, v]) => [k, round(v * month, 6)]),
      ),
      poll: {
        runMs: round(pollMs),
        invocationsPerUserDay: pollInvocations,
        profileSetsPerUserDay: round(pollSets, 2),
        profileSetsEveryMinutePerUserDay: round(busyMinutes / userDays, 1),
        gbSecondsPerUserDay: round(pollGbSeconds, 2),
        usdPerUserMonth: round(pollUsd, 5),
      },
      fewerInvocations: round(pollInvocations / perUserDay(batchedTotal), 1),
      idleTickReads: round(idleTickReads, 1),
      deploymentUsers: deployment,
      wallS: round((performance.now() - t0) / 1000),
    };
  } finally {
    await bench.close();
  }
}

export function costTable(r: CostResult): string {
  const rows: string[][] = [
    [
      "users.profile.set calls",
      String(r.profileSetsPerUserDay),
      String(r.poll.profileSetsPerUserDay),
    ],
    ["  per busy block (incl. explicit clears)", String(r.setsPerBusyBlock), "2 (set + clear)"],
    ["DynamoDB reads (request units)", `${r.readsPerUserDay} (${r.readUnitsPerUserDay})`, "0"],
    ["DynamoDB writes (request units)", `${r.writesPerUserDay} (${r.writeUnitsPerUserDay})`, "0"],
    ["queue messages", String(r.queueMessagesPerUserDay), "0"],
    [
      "Lambda invocations (SQS-batched)",
      `${r.invocationsTotalPerUserDay} (${r.invocationsBatchedPerUserDay})`,
      String(r.poll.invocationsPerUserDay),
    ],
    [
      "Lambda GB-seconds",
      String(r.gbSecondsPerUserDay),
      `${r.poll.gbSecondsPerUserDay} (${r.poll.runMs} ms a run)`,
    ],
    ["US$ per user-month", String(r.usdPerUserMonth), String(r.poll.usdPerUserMonth)],
  ];
  const perFn = Object.entries(r.invocationsPerUserDay)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  const usd = Object.entries(r.usdBreakdown)
    .map(([k, v]) => `${k} $${v}`)
    .join(", ");
  return [
    formatTable(
      `calls and cost per user-day: ${r.users} users × ${r.days} days (${r.busyBlocksPerUserDay} busy blocks per user-day), local stack on a simulated clock`,
      ["per user-day", "statuspilot", "poll every minute"],
      rows,
    ),
    `invocations by function per user-day: ${perFn} (tick and poll: 1,440 and 288 a day per deployment, shared by ${r.deploymentUsers} users; ${r.idleTickReads} reads each)`,
    `statuspilot US$ per user-month by service: ${usd}`,
    `Lambda invocations: ${r.fewerInvocations}× fewer than polling (goal ≥ 50×); sets per busy block ${r.setsPerBusyBlock} (goal ≤ 1); a poll bot that sets every minute while busy makes ${r.poll.profileSetsEveryMinutePerUserDay} sets a day`,
    "GB-seconds: handler time measured here plus module init at each cold start (an instance idle 15 min is assumed gone); the poll bot's runs are warm",
    "prices (us-east-1 list, on-demand): Lambda arm64 $0.20/M requests + $0.0000133334/GB-s (512 MB); DynamoDB $0.125/M read units, $0.625/M write units; SQS $0.40/M requests (3 per message); HTTP API $1.00/M; KMS $0.03/10k",
  ].join("\n");
}
