import { systemClock } from "#lib/app/system-clock";
import { ManualClock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";
import { DEMO_GOOGLE_ACCOUNT } from "#lib/local/google";
import { type LocalStack, startStack } from "#lib/local/stack";
import { providerStackOptions } from "../support/provider-stack";
import { seededRng } from "./scenario";

/**
 * The renewal soak (issue 14): a local stack with the Google emulator on one hand-moved clock,
 * one person connected to Google over HTTP (/install, /connect/google), then a simulated month
 * with short channel lifetimes and faults on (rate-limited Calendar calls, expired sync tokens,
 * expired access tokens). Every simulated hour the calendar may change; each change must reach
 * the source through its push at the instant it happens (no push lost), and the channel must
 * never be found lapsed: renewals at 80% of the lifetime, scheduled through the due index and
 * retried after a failure, keep it alive.
 */

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

export interface RenewalShape {
  days: number;
  /** The lifetime asked for each channel. */
  channelTtlMs: number;
  seed: number;
  start: number;
  /** Chance per simulated hour of a calendar change; of a fault. */
  editRate: number;
  faultRate: number;
}

export const RENEWAL_SHAPE: RenewalShape = {
  days: 30,
  channelTtlMs: 6 * HOUR,
  seed: 20260401,
  start: Date.UTC(2026, 3, 1, 0, 0),
  editRate: 0.5,
  faultRate: 0.15,
};

/**
 * How often the soaks' stack ticks: the upkeeps run when the tick finds them due. Every minute
 * as deployed would cost a month 43,200 tick runs; every 5 minutes keeps a renewal within
 * minutes of its instant, far inside the short channels' 20% margin.
 */
export const SOAK_TICK_MS = 15 * MIN;

/** What the handlers' logs said of the push channels; the logs themselves are dropped. */
export interface UpkeepTally {
  created: number;
  renewed: number;
  recreated: number;
  failed: number;
}

/** A silent app log that counts the upkeep steps (the handlers log one line per upkeep). */
export function tallyingLog(): { log: Log; tally: UpkeepTally } {
  const tally: UpkeepTally = { created: 0, renewed: 0, recreated: 0, failed: 0 };
  const step = (message: string, data?: Record<string, unknown>) => {
    if (message === "push channel upkeep") {
      const kind = data?.step;
      if (kind === "created" || kind === "renewed" || kind === "recreated") tally[kind]++;
    } else if (message === "push channel upkeep failed") tally.failed++;
  };
  return { log: { debug() {}, info: step, warn: step, error() {} }, tally };
}

export interface RenewalReport {
  shape: RenewalShape;
  edits: number;
  upkeeps: UpkeepTally;
  pushesLost: Array<{ at: number; what: string }>;
  lapsed: Array<{ at: number; state: string }>;
  channelsCreated: number;
  /** events.list calls the app made, and how many a 15-minute poll alone would have made. */
  reads: { made: number; fifteenMinutePoll: number };
  faults: Record<string, number>;
  wallMs: number;
  passed: boolean;
}

/** A browser's cookies, reduced to what the two OAuth flows need. */
export class Jar {
  private readonly cookies = new Map<string, string>();
  async visit(url: string): Promise<Response> {
    const header = [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const res = await fetch(url, {
      redirect: "manual",
      ...(header ? { headers: { cookie: header } } : {}),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const eq = pair.indexOf("=");
      if (/Max-Age=0/i.test(line)) this.cookies.delete(pair.slice(0, eq));
      else this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    return res;
  }
  /** Follows redirects by hand (the jar sees each Set-Cookie); the final URL. */
  async follow(url: string, hops = 4): Promise<string> {
    let at = url;
    for (let i = 0; i < hops; i++) {
      const res = await this.visit(at);
      const next = res.headers.get("location");
      if (next === null) return at;
      at = new URL(next, at).href;
    }
    return at;
  }
}

export async function json(url: string, init: RequestInit = {}): Promise<Record<string, unknown>> {
  const res = await fetch(url, init);
  const body = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

/** When the demo user's connected source of `kind` last synced (the admin API's view), or 0. */
export async function sourceSyncedAt(stack: LocalStack, kind: string): Promise<number> {
  const view = await json(`${stack.url}/admin/users/T0DEMO/U001`, {
    headers: { "x-api-key": stack.adminApiKey },
  });
  const user = (view.user ?? {}) as { sources?: Array<{ kind: string; syncedAt?: number }> };
  return (user.sources ?? []).find((s) => s.kind === kind)?.syncedAt ?? 0;
}

/** The demo user's first push channel state (`/_local/status`), or "none". */
export async function pushStateOf(stack: LocalStack): Promise<string> {
  const status = await json(`${stack.url}/_local/status/U001?team=T0DEMO`);
  const pushes = (status.pushes ?? []) as Array<{ state: string }>;
  return pushes[0]?.state ?? "none";
}

export async function runRenewalSoak(
  shape: RenewalShape = RENEWAL_SHAPE,
  progress?: (line: string) => void,
): Promise<RenewalReport> {
  const wallStart = systemClock.now();
  const random = seededRng(shape.seed).next;
  const clock = new ManualClock(shape.start);
  // Counts the app's Calendar reads (the poll cost of a push-backed source); restored at the end.
  const realFetch = globalThis.fetch;
  const { log: appLog, tally } = tallyingLog();
  let reads = 0;
  globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (url.includes("/calendar/v3/calendars/primary/events?")) reads++;
    return realFetch(input, init);
  }) as typeof fetch;
  const stack: LocalStack = await startStack(
    providerStackOptions(clock, {
      // Statuses are not under test here; the tick runs the upkeeps, the poll as deployed.
      tickEveryMs: SOAK_TICK_MS,
      appLog,
      logLevel: "INFO",
      google: { emulator: { autoApprove: true } },
      pushTtlMs: shape.channelTtlMs,
    }),
  ).catch((error: unknown) => {
    globalThis.fetch = realFetch;
    throw error;
  });
  const google = stack.google?.emulator?.url ?? "";
  const control = (route: string, body?: unknown) =>
    json(`${google}/_control${route}`, {
      method: body === undefined ? "GET" : "POST",
      headers: { "content-type": "application/json" },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  const report: RenewalReport = {
    shape,
    edits: 0,
    upkeeps: tally,
    pushesLost: [],
    lapsed: [],
    channelsCreated: 0,
    reads: { made: 0, fifteenMinutePoll: Math.round((shape.days * DAY) / (15 * MIN)) },
    faults: {},
    wallMs: 0,
    passed: false,
  };
  try {
    // Install as U001 (the service emulator's consent), then connect Google (auto-approved).
    const jar = new Jar();
    const install = await jar.visit(`${stack.url}/install`);
    const authorize = new URL(install.headers.get("location") ?? "");
    authorize.searchParams.set("as", "U001");
    await jar.follow(authorize.href);
    const landed = await jar.follow(`${stack.url}/connect/google`);
    if (!landed.endsWith("/settings?notice=calendar_connected")) {
      throw new Error(`connecting Google ended at ${landed}`);
    }
    const deliver = async () => {
      await control("/flush", {});
      await stack.settle();
      await stack.advance(0);
    };
    await deliver();
    const syncedAt = () => sourceSyncedAt(stack, "google");
    const pushState = () => pushStateOf(stack);
    const eventIds: string[] = [];
    const hours = shape.days * 24;
    for (let hour = 0; hour < hours; hour++) {
      await stack.advance(HOUR - 1000);
      if (random() < shape.faultRate) {
        const pick = random();
        const fault =
          pick < 0.5
            ? {
                rateLimit: {
                  status: 403,
                  reason: "rateLimitExceeded",
                  times: 1 + Math.floor(random() * 3),
                },
              }
            : pick < 0.75
              ? { expireSyncTokens: { calendar: DEMO_GOOGLE_ACCOUNT } }
              : { expireAccessTokens: { user: DEMO_GOOGLE_ACCOUNT } };
        const name = Object.keys(fault)[0] ?? "";
        report.faults[name] = (report.faults[name] ?? 0) + 1;
        await control("/faults", fault);
      }
      await stack.advance(1000);
      const state = await pushState();
      if (state === "lapsed" || state === "none") report.lapsed.push({ at: clock.now(), state });
      if (random() < shape.editRate) {
        const now = clock.now();
        const cancel = eventIds.length > 3 && random() < 0.4;
        if (cancel) {
          const id = eventIds.splice(Math.floor(random() * eventIds.length), 1)[0] ?? "";
          await control(
            `/calendars/${encodeURIComponent(DEMO_GOOGLE_ACCOUNT)}/events/${encodeURIComponent(id)}/cancel`,
            {},
          );
        } else {
          const start = now + Math.floor(random() * 5 * DAY);
          const created = await control(
            `/calendars/${encodeURIComponent(DEMO_GOOGLE_ACCOUNT)}/events`,
            {
              summary: `Meeting ${hour}`,
              start: { dateTime: new Date(start).toISOString() },
              end: { dateTime: new Date(start + 30 * MIN).toISOString() },
            },
          );
          eventIds.push(String(created.id));
        }
        report.edits++;
        await deliver();
        // The push's sync ran at this very instant (a rate-limited one is redelivered by the
        // queue a little later: wait for the queue's retries before calling it lost).
        let synced = await syncedAt();
        for (let retry = 0; retry < 6 && synced < now; retry++) {
          await stack.advance(30_000);
          await deliver();
          synced = await syncedAt();
        }
        if (synced < now) {
          report.pushesLost.push({ at: now, what: cancel ? "cancel" : "create" });
        }
      }
      if (hour % 24 === 23) progress?.(`renewal soak: day ${(hour + 1) / 24} of ${shape.days}`);
    }
    const channels = (await control("/channels")).channels as unknown[];
    report.channelsCreated = channels.length;
  } finally {
    report.reads.made = reads;
    await stack.close();
    globalThis.fetch = realFetch;
  }
  report.wallMs = systemClock.now() - wallStart;
  report.passed = report.pushesLost.length === 0 && report.lapsed.length === 0;
  return report;
}

export function formatRenewalReport(r: RenewalReport): string {
  const faults = Object.entries(r.faults)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  return [
    `renewal soak: ${r.shape.days} simulated days, channels asked for ${r.shape.channelTtlMs / HOUR} h`,
    `  edits ${r.edits}, pushes lost ${r.pushesLost.length}, lapsed checks ${r.lapsed.length}`,
    `  channels created ${r.channelsCreated} (the first and each renewal or repair)`,
    `  upkeeps: created ${r.upkeeps.created}, renewed ${r.upkeeps.renewed}, recreated ${r.upkeeps.recreated}, failed (retried) ${r.upkeeps.failed}`,
    `  Calendar reads ${r.reads.made} (pushes, probes and the 6-hourly safety poll); a 15-minute poll alone: ${r.reads.fifteenMinutePoll}`,
    `  faults: ${faults || "none"}`,
    `  wall time ${(r.wallMs / 1000).toFixed(1)} s`,
    `  ${r.passed ? "PASS" : "FAIL"}`,
  ].join("\n");
}
