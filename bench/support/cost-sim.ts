/**
 * The cost benchmark's simulation of some users for some days on the in-process stack, and the
 * raw counts it returns (plain data, so worker processes can send them to the parent).
 */
import type { CallRecord } from "#emulator/server";
import { type DemoEvent, renderIcs } from "#lib/local/demo-feed";
import type { DynamoCounts } from "./dynamo-meter";
import type { KmsCounts } from "./kms-meter";
import type { Invocation } from "./lambda-meter";
import { type BenchUser, startBenchStack } from "./stack";
import { benchUserId } from "./workspace";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** A Monday, 00:00 UTC; the simulation starts here (400 ms off the second, as schedules are). */
export const MONTH_START = Date.parse("2026-03-02T00:00:00Z");
/** Schedule runs measured before anything is due, to learn what an idle tick or poll reads. */
const IDLE_RUNS = 3;

const isOooDay = (d: number) => d >= 14 && d <= 18;

/** Every simulated user has Do Not Disturb on for meetings and focus time (issue 25's cost). */
export const COST_RULES = { meeting: { dnd: true }, focus: { dnd: true } };

/**
 * One user's month: six meetings a weekday (a back-to-back pair), a weekly focus block, a week
 * out of office, the last meeting moved every Tuesday at 08:00 and a review cancelled while it
 * shows every Thursday. Users are shifted by 0, 15, 30 or 45 minutes so they do not all move at
 * once. `upTo` is the instant the calendar is read at: edits after it have not happened yet.
 */
export function eventsFor(i: number, days: number, upTo: number): DemoEvent[] {
  const shift = (i % 4) * 15 * MINUTE;
  const user = benchUserId(i);
  const events: DemoEvent[] = [];
  const at = (day: number, h: number, m = 0) => MONTH_START + day * DAY + h * HOUR + m * MINUTE;
  for (let d = 0; d < days; d++) {
    const weekday = d % 7; // 0 = Monday
    if (weekday >= 5 || isOooDay(d)) continue;
    const ev = (name: string, h: number, m: number, minutes: number, summary = "Meeting") => ({
      uid: `${name}-${d}-${user}@bench`,
      summary,
      start: at(d, h, m) + shift,
      end: at(d, h, m) + shift + minutes * MINUTE,
      busyStatus: "BUSY" as const,
    });
    const moved = weekday === 1 && at(d, 8) <= upTo;
    const cancelled = weekday === 3 && at(d, 11, 15) + shift <= upTo;
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

/** Instants a user's calendar is edited (and its hook pushed). */
export function editsFor(i: number, days: number): number[] {
  const shift = (i % 4) * 15 * MINUTE;
  const edits: number[] = [];
  for (let d = 0; d < days; d++) {
    if (isOooDay(d)) continue;
    if (d % 7 === 1) edits.push(MONTH_START + d * DAY + 8 * HOUR);
    if (d % 7 === 3) edits.push(MONTH_START + d * DAY + 11 * HOUR + 15 * MINUTE + shift);
  }
  return edits;
}

/**
 * The events that showed, each as the calendar stood at its start: one cancelled while it
 * showed counts (its status and snooze were set), one moved before it began counts once, where
 * it moved to. Counting only the final calendar left the cancelled ones out, so the calls they
 * made were charged to the other blocks.
 */
export function shownEvents(i: number, days: number, end: number): DemoEvent[] {
  return eventsFor(i, days, end).flatMap((last) => {
    const atStart = eventsFor(i, days, last.start).find((e) => e.uid === last.uid);
    return atStart !== undefined && !atStart.cancelled && atStart.start < end ? [atStart] : [];
  });
}

/** Busy blocks after merging back-to-back runs of the same status. */
export function busyBlocks(events: DemoEvent[]): number {
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

export interface CostSample {
  users: number;
  /** Simulated user-days measured (after the idle runs). */
  userDays: number;
  invocations: Invocation[];
  dynamo: DynamoCounts;
  /** KMS requests the handlers made, each function instance keeping what it opened. */
  kms: KmsCounts;
  /** DynamoDB reads and read units of one idle tick or poll. */
  idleRun: { reads: number; readUnits: number };
  queueMessages: { transition: number; sync: number };
  serviceCalls: Array<Pick<CallRecord, "method" | "at" | "outcome">>;
  expiryClears: number;
  eventDeliveries: number;
  pushes: number;
  blocks: number;
  busyMinutes: number;
  /**
   * Bytes the handlers logged at the deployed level (INFO), but for the tick's and the poll's
   * own summary lines, which a deployment writes once a run whatever its size: those apart.
   */
  logBytes: number;
  scheduleLogLines: { lines: number; bytes: number };
  /** Transitions each tick run that found any enqueued, in run order (from its summary line). */
  tickFinds: number[];
  wallS: number;
}

/** The tick's and the poll's one summary line a run (the schedule handlers' log message). */
const SCHEDULE_LINE = /"message":"(tick|poll)"/;
/** What the tick's summary line says it enqueued. */
const TICK_ENQUEUED = /"message":"tick".*"enqueued":(\d+)|"enqueued":(\d+).*"message":"tick"/;

/**
 * Counts (and swallows) what this process writes to stdout and stderr: the handlers' log lines,
 * which Lambda would ship to CloudWatch Logs. Returns a function that restores the streams.
 */
function countLogBytes(
  onChunk: (bytes: number, schedule: boolean, text: string) => void,
): () => void {
  const streams = [process.stdout, process.stderr];
  const originals = streams.map((s) => s.write);
  for (const stream of streams) {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      onChunk(Buffer.byteLength(text), SCHEDULE_LINE.test(text), text);
      const done = rest.find((r) => typeof r === "function") as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof stream.write;
  }
  return () => {
    streams.forEach((s, k) => {
      s.write = originals[k] as typeof s.write;
    });
  };
}

/**
 * Simulates users `indices` for `days` days on one in-process stack and returns every count.
 * Ticks that cannot find anything due (no calendar edge or edit within a minute) are skipped:
 * a skipped tick costs exactly an idle tick, which the model adds back per deployment.
 */
export async function simulateCost(indices: number[], days: number): Promise<CostSample> {
  const t0 = performance.now();
  const start = MONTH_START + 400;
  const end = MONTH_START + days * DAY;
  const feed = (i: number, upTo: number) => renderIcs(eventsFor(i, days, upTo), start);
  const users: BenchUser[] = indices.map((i) => ({
    user: benchUserId(i),
    tz: "UTC",
    ics: feed(i, start),
    rules: COST_RULES,
  }));
  const edgeMinutes = new Set<number>();
  const editsAt = new Map<number, number[]>();
  for (const i of indices) {
    for (const e of [...eventsFor(i, days, 0), ...eventsFor(i, days, end)]) {
      edgeMinutes.add(Math.floor(e.start / MINUTE));
      edgeMinutes.add(Math.floor(e.end / MINUTE));
    }
    for (const at of editsFor(i, days)) {
      editsAt.set(at, [...(editsAt.get(at) ?? []), i]);
      for (let m = 0; m < 3; m++) edgeMinutes.add(Math.floor(at / MINUTE) + m);
    }
  }
  let measuringIdle = true;
  const tickFilter = (at: number) => {
    if (measuringIdle) return true;
    const m = Math.floor(at / MINUTE);
    return edgeMinutes.has(m) || edgeMinutes.has(m + 1) || edgeMinutes.has(m - 1);
  };
  let logBytes = 0;
  const scheduleLogLines = { lines: 0, bytes: 0 };
  const tickFinds: number[] = [];
  const restoreStreams = countLogBytes((bytes, schedule, text) => {
    if (!schedule) logBytes += bytes;
    else {
      scheduleLogLines.lines++;
      scheduleLogLines.bytes += bytes;
      const enqueued = TICK_ENQUEUED.exec(text);
      const found = Number(enqueued?.[1] ?? enqueued?.[2] ?? 0);
      if (!measuringIdle && found > 0) tickFinds.push(found);
    }
  });
  // One message at a time, so each handler's measured time is its own (not its neighbours').
  const bench = await startBenchStack({
    start,
    users,
    hooks: true,
    tickFilter,
    skipIdlePolls: true,
    concurrency: 1,
    handlerLogLevel: "INFO",
    priceIndexWrites: true,
  }).catch((error: unknown) => {
    restoreStreams();
    throw error;
  });
  try {
    bench.resetMeters();
    await bench.advanceTo(start + IDLE_RUNS * MINUTE);
    const idle = bench.meters().dynamo;
    measuringIdle = false;
    bench.resetMeters();
    logBytes = 0;
    let pushes = 0;
    for (const at of [...editsAt.keys()].sort((a, b) => a - b)) {
      await bench.advanceTo(at);
      await Promise.all(
        (editsAt.get(at) ?? []).map(async (i) => {
          const text = feed(i, at);
          if (text === feed(i, at - 1)) return;
          bench.setFeed(benchUserId(i), text);
          pushes++;
          await bench.push(benchUserId(i));
        }),
      );
    }
    await bench.advanceTo(end);
    const m = bench.meters();
    const final = indices.map((i) => eventsFor(i, days, end));
    return {
      users: indices.length,
      userDays: indices.length * ((end - (start + IDLE_RUNS * MINUTE)) / DAY),
      invocations: m.invocations,
      dynamo: m.dynamo,
      kms: m.kms,
      idleRun: { reads: idle.reads / IDLE_RUNS, readUnits: idle.readUnits / IDLE_RUNS },
      queueMessages: m.queueMessages,
      serviceCalls: m.serviceCalls.map(({ method, at, outcome }) => ({ method, at, outcome })),
      expiryClears: m.expiryClears,
      eventDeliveries: m.eventDeliveries,
      pushes,
      blocks: indices.reduce((n, i) => n + busyBlocks(shownEvents(i, days, end)), 0),
      busyMinutes: final
        .flat()
        .filter((e) => !e.cancelled)
        .reduce((n, e) => n + (e.end - e.start) / MINUTE, 0),
      logBytes,
      scheduleLogLines,
      tickFinds,
      wallS: (performance.now() - t0) / 1000,
    };
  } finally {
    restoreStreams();
    await bench.close();
  }
}
