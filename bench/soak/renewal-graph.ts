import { DEMO_USERS } from "#emulator/microsoft/server";
import { systemClock } from "#lib/app/system-clock";
import { ManualClock } from "#lib/core/clock";
import { type LocalStack, startStack } from "#lib/local/stack";
import { providerStackOptions } from "../support/provider-stack";
import {
  Jar,
  pushStateOf,
  RENEWAL_SHAPE,
  type RenewalShape,
  SOAK_TICK_MS,
  sourceSyncedAt,
  tallyingLog,
  type UpkeepTally,
} from "./renewal";
import { seededRng } from "./scenario";

/**
 * The renewal soak for Microsoft Graph (issue 14): as bench/soak/renewal.ts does for Google, a
 * local stack with the Microsoft emulator on one hand-moved clock, one person connected over
 * HTTP (/install, /connect/microsoft), then simulated days with short subscription lifetimes and
 * faults on (throttled Graph calls, short and long Retry-After; delta tokens Graph no longer
 * knows; `missed` lifecycle notifications; access tokens expire by the clock every hour). Each
 * calendar change must reach the source through its change notification at the instant it
 * happens, and the subscription must never be found lapsed: PATCH renewals at 80%, scheduled
 * through the due index, keep it.
 */

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const MS_USER = DEMO_USERS[0]?.id ?? "";

export interface GraphRenewalReport {
  shape: RenewalShape;
  edits: number;
  upkeeps: UpkeepTally;
  pushesLost: Array<{ at: number; what: string }>;
  lapsed: Array<{ at: number; state: string }>;
  /** Subscriptions created (POST) and renewed (PATCH) at Graph. */
  created: number;
  renewed: number;
  /** calendarView calls the app made, and how many reads a 15-minute poll alone would make. */
  reads: { made: number; fifteenMinutePoll: number };
  faults: Record<string, number>;
  wallMs: number;
  passed: boolean;
}

export async function runGraphRenewalSoak(
  shape: RenewalShape = RENEWAL_SHAPE,
  progress?: (line: string) => void,
): Promise<GraphRenewalReport> {
  const wallStart = systemClock.now();
  const random = seededRng(shape.seed).next;
  const clock = new ManualClock(shape.start);
  const { log: appLog, tally } = tallyingLog();
  const stack: LocalStack = await startStack(
    providerStackOptions(clock, {
      tickEveryMs: SOAK_TICK_MS,
      appLog,
      logLevel: "INFO",
      google: false,
      pushTtlMs: shape.channelTtlMs,
    }),
  );
  const graph = stack.microsoft?.emulator;
  const report: GraphRenewalReport = {
    shape,
    edits: 0,
    upkeeps: tally,
    pushesLost: [],
    lapsed: [],
    created: 0,
    renewed: 0,
    reads: { made: 0, fifteenMinutePoll: Math.round((shape.days * DAY) / (15 * MIN)) },
    faults: {},
    wallMs: 0,
    passed: false,
  };
  try {
    if (graph === undefined) throw new Error("the stack runs no Microsoft emulator");
    const jar = new Jar();
    const install = await jar.visit(`${stack.url}/install`);
    const authorize = new URL(install.headers.get("location") ?? "");
    authorize.searchParams.set("as", "U001");
    await jar.follow(authorize.href);
    const begin = await jar.visit(`${stack.url}/connect/microsoft`);
    const consent = new URL(begin.headers.get("location") ?? "");
    consent.searchParams.set("as", MS_USER);
    const landed = await jar.follow(consent.href);
    if (!landed.endsWith("/settings?notice=calendar_connected")) {
      throw new Error(`connecting Microsoft ended at ${landed}`);
    }
    const deliver = async () => {
      await graph.flushNotifications();
      await stack.settle();
      await stack.advance(0);
    };
    await deliver();
    const syncedAt = () => sourceSyncedAt(stack, "graph");
    const pushState = () => pushStateOf(stack);
    const eventIds: string[] = [];
    const hours = shape.days * 24;
    for (let hour = 0; hour < hours; hour++) {
      await stack.advance(HOUR - 1000);
      if (random() < shape.faultRate) {
        const pick = random();
        const name =
          pick < 0.35
            ? "throttleShort"
            : pick < 0.6
              ? "throttleLong"
              : pick < 0.85
                ? "expireDelta"
                : "missed";
        report.faults[name] = (report.faults[name] ?? 0) + 1;
        if (name === "throttleShort") graph.setFaults({ throttleNext: 1, retryAfterS: 1 });
        else if (name === "throttleLong") graph.setFaults({ throttleNext: 1, retryAfterS: 30 });
        else if (name === "expireDelta") graph.setFaults({ expireDeltaNext: 1 });
        else for (const s of graph.subscriptions()) graph.sendMissed(s.id);
      }
      await stack.advance(1000);
      const state = await pushState();
      if (state === "lapsed" || state === "none") report.lapsed.push({ at: clock.now(), state });
      if (random() < shape.editRate) {
        const now = clock.now();
        const cancel = eventIds.length > 3 && random() < 0.4;
        if (cancel) {
          const id = eventIds.splice(Math.floor(random() * eventIds.length), 1)[0] ?? "";
          graph.updateEvent(MS_USER, id, { isCancelled: true });
        } else {
          const start = now + Math.floor(random() * 5 * DAY);
          eventIds.push(
            graph.createEvent(MS_USER, {
              subject: `Meeting ${hour}`,
              start,
              end: start + 30 * MIN,
            }),
          );
        }
        report.edits++;
        await deliver();
        // A throttled sync is redelivered by the queue a little later: wait for its retries.
        let synced = await syncedAt();
        for (let retry = 0; retry < 6 && synced < now; retry++) {
          await stack.advance(30_000);
          await deliver();
          synced = await syncedAt();
        }
        if (synced < now) report.pushesLost.push({ at: now, what: cancel ? "cancel" : "create" });
      }
      graph.setFaults({});
      if (hour % 24 === 23)
        progress?.(`graph renewal soak: day ${(hour + 1) / 24} of ${shape.days}`);
    }
    const calls = graph.calls();
    report.created = calls.filter(
      (c) => c.method === "POST" && c.path === "/v1.0/subscriptions" && c.status === 201,
    ).length;
    report.renewed = calls.filter((c) => c.method === "PATCH" && c.status === 200).length;
    // calendarView calls (delta rounds and window pages), as the Google soak counts events.list.
    report.reads.made = calls.filter(
      (c) => c.method === "GET" && c.path.includes("/calendarView"),
    ).length;
  } finally {
    await stack.close();
  }
  report.wallMs = systemClock.now() - wallStart;
  report.passed = report.pushesLost.length === 0 && report.lapsed.length === 0;
  return report;
}

export function formatGraphRenewalReport(r: GraphRenewalReport): string {
  const faults = Object.entries(r.faults)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  return [
    `graph renewal soak: ${r.shape.days} simulated days, subscriptions asked for ${r.shape.channelTtlMs / HOUR} h`,
    `  edits ${r.edits}, pushes lost ${r.pushesLost.length}, lapsed checks ${r.lapsed.length}`,
    `  subscriptions created ${r.created}, renewed ${r.renewed}`,
    `  calendarView calls ${r.reads.made} (notifications, probes and the 6-hourly safety poll); a 15-minute poll alone: ${r.reads.fifteenMinutePoll}`,
    `  upkeeps: created ${r.upkeeps.created}, renewed ${r.upkeeps.renewed}, recreated ${r.upkeeps.recreated}, failed (retried) ${r.upkeeps.failed}`,
    `  faults: ${faults || "none"}`,
    `  wall time ${(r.wallMs / 1000).toFixed(1)} s`,
    `  ${r.passed ? "PASS" : "FAIL"}`,
  ].join("\n");
}
