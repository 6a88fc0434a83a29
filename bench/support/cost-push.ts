/**
 * The cost benchmark's push-backed user: the same month of meetings and edits as the ICS users
 * (cost-sim.ts), in a connected Google calendar with a live push channel. It runs on the local
 * stack with the Google emulator on a simulated clock, everything over real HTTP: the user
 * installs and connects Google (/install, /connect/google), each edit is made through the
 * emulator's control surface, which pushes it to our hook as Google does; the upkeep (through
 * the due index, run by the tick) keeps the channel alive, and the poll sends a check only at
 * the source's safety-net visit, one in 24 (6 h). Every sync check, calendar read, channel
 * call, notification, DynamoDB command, queue message and KMS request of the calendar side is
 * counted (plain data, so a worker process can send it to its parent). KMS requests are counted
 * as the ICS users' are: through the vault, one cache of opened values per function instance,
 * emptied at each modelled cold start (kms-meter.ts, lambda-meter.ts WARM_MS).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { demoEventId } from "#emulator/google/demo";
import { ManualClock } from "#lib/core/clock";
import { POLL_INTERVAL_MS, POLL_RUN_MS } from "#lib/core/poll";
import { DEMO_GOOGLE_ACCOUNT } from "#lib/local/google";
import { type LocalStack, startStack } from "#lib/local/stack";
import { pollPhase } from "#lib/store/items/user";
import { Jar } from "../soak/renewal";
import { DAY, editsFor, eventsFor, MONTH_START } from "./cost-sim";
import {
  type DynamoCounts,
  dynamoCounts,
  installDynamoMeter,
  meteredFunction,
  priceIndexWrites,
  resetDynamoCounts,
} from "./dynamo-meter";
import { type KmsCounts, kmsCounts, meteredVault, resetKmsCounts } from "./kms-meter";
import { type Invocation, instanceOf, invocations, resetInvocations, timed } from "./lambda-meter";
import { providerStackOptions } from "./provider-stack";
import { benchUserId } from "./workspace";

const MINUTE = 60_000;
/** The user the connection is made as (the service emulator's demo workspace). */
const TEAM = "T0DEMO";
const USER = "U001";
/**
 * Days simulated at most: a week holds the month's weekly pattern (five working days, a moved
 * meeting, a cancelled one, a weekend) and a renewal of the ~7-day channel at 80%, and keeps the
 * run short (the local stack settles for some milliseconds at every instant).
 */
export const PUSH_DAYS = 7;
/** How often the run's tick runs (deployed: every minute); see its use. */
const TICK_EVERY_MS = 15 * MINUTE;

/**
 * Where the simulation starts: MONTH_START plus the offset that makes 15-minute poll runs land
 * on the period that covers the user's poll phase. The poll runs every 5 minutes as deployed;
 * the two runs in three that cover other phases cannot find this user and are not run (they
 * cost an idle poll, the deployment's, as in the ICS run).
 */
function startFor(key: { team: string; user: string }): number {
  const slot = Math.floor(pollPhase(key) / POLL_RUN_MS) * POLL_RUN_MS;
  return MONTH_START + 400 + ((slot + POLL_RUN_MS) % POLL_INTERVAL_MS);
}

/** Calls our app made to the provider, and the notifications the provider sent us. */
export interface ProviderCalls {
  /** events.list: the calendar reads (pages included). */
  reads: number;
  /** Of them, those made by a sync of each reason (`poll`: the safety net), by message reason. */
  readsBy: Record<string, number>;
  /** events.watch and channels.stop: the channel's creation, renewals and repairs. */
  channelCalls: number;
  /** Token endpoint calls (each opens the KMS-sealed refresh token). */
  tokenCalls: number;
  /**
   * Function instances (in the bench's model) that called the Calendar API without a token call
   * of their own: the local stack's functions share one App, so one access-token cache, and such
   * an instance used a token another instance had obtained. Deployed, a new instance has no
   * access token: it refreshes, opening the sealed refresh token (one more Decrypt each).
   */
  inheritedTokenInstances: number;
  /** Push notifications posted to our Google hook. */
  notifications: number;
}

export interface PushCostSample {
  provider: "google";
  /** Simulated user-days measured (after the connection). */
  userDays: number;
  invocations: Invocation[];
  dynamo: DynamoCounts;
  queueMessages: { transition: number; sync: number };
  calls: ProviderCalls;
  /** KMS requests through the vault, by function (kms-meter.ts). */
  kms: KmsCounts;
  /** Calendar edits made (each pushed by the emulator). */
  edits: number;
  wallS: number;
}

/** The reason of the sync message being handled (the first of its batch), or the function. */
const handling = new AsyncLocalStorage<string>();

function reasonOf(fn: string, event: unknown): string {
  const body = (event as { Records?: Array<{ body?: string }> } | undefined)?.Records?.[0]?.body;
  if (fn !== "syncWorker" || body === undefined) return fn;
  try {
    const reason = (JSON.parse(body) as { reason?: unknown }).reason;
    return typeof reason === "string" ? reason : fn;
  } catch {
    return fn;
  }
}

/** Which function instances called the Calendar API, and which obtained an access token. */
interface TokenUse {
  apiCallers: Set<string>;
  refreshers: Set<string>;
}

/** The running function's instance in the lambda meter's model, as `fn#n`. */
const instanceKey = (): string => {
  const fn = meteredFunction() ?? "setup";
  return `${fn}#${instanceOf(fn)}`;
};

/** Classifies a request URL of the app (or the emulator's push) into `calls`. */
function countCall(calls: ProviderCalls, use: TokenUse, url: string, method: string): void {
  const { pathname } = new URL(url);
  if (pathname.endsWith("/events/watch") || pathname.endsWith("/channels/stop")) {
    calls.channelCalls++;
    use.apiCallers.add(instanceKey());
  } else if (/\/calendar\/v3\/calendars\/[^/]+\/events$/.test(pathname) && method === "GET") {
    calls.reads++;
    const by = handling.getStore() ?? "other";
    calls.readsBy[by] = (calls.readsBy[by] ?? 0) + 1;
    use.apiCallers.add(instanceKey());
  } else if (pathname.endsWith("/token")) {
    calls.tokenCalls++;
    use.refreshers.add(instanceKey());
  } else if (pathname === "/hooks/google") calls.notifications++;
}

/**
 * One user, `monthDays` days (PUSH_DAYS at most): the ICS users' calendar (user 0's), as Google events, and their edits
 * (the Tuesday meeting moved, the Thursday review cancelled while it shows), pushed.
 */
export async function simulatePushCost(monthDays: number): Promise<PushCostSample> {
  const t0 = performance.now();
  const days = Math.min(monthDays, PUSH_DAYS);
  installDynamoMeter();
  priceIndexWrites(true);
  const clock = new ManualClock(startFor({ team: TEAM, user: USER }));
  const calls: ProviderCalls = {
    reads: 0,
    readsBy: {},
    channelCalls: 0,
    tokenCalls: 0,
    inheritedTokenInstances: 0,
    notifications: 0,
  };
  const tokenUse: TokenUse = { apiCallers: new Set(), refreshers: new Set() };
  const realFetch = globalThis.fetch;
  let counting = false;
  globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
    const request = input instanceof Request ? input : undefined;
    if (counting) {
      countCall(
        calls,
        tokenUse,
        request?.url ?? String(input),
        init?.method ?? request?.method ?? "GET",
      );
    }
    return realFetch(input, init);
  }) as typeof fetch;
  const stack: LocalStack = await startStack(
    providerStackOptions(clock, {
      // Statuses are the ICS run's business (the same meetings make the same transitions), but
      // the tick must run often enough that the sync finds its transitions handled: with a daily
      // tick the sync worker wrote the statuses the tick had left (0.86 writes a day, and the
      // user's token opened for them), which the ICS run's minute tick does outside the calendar
      // side. Every 15 minutes the sync worker writes none, as with the deployed minute tick
      // (checked over 3 days), for a fifteenth of the minute tick's simulation time; the poll
      // runs as deployed.
      tickEveryMs: TICK_EVERY_MS,
      pollEveryMs: POLL_INTERVAL_MS,
      logLevel: "ERROR",
      google: { emulator: { autoApprove: true } },
      microsoft: false,
      // The KMS stand-in behind one cache of opened values per function instance, counted.
      wrapTokens: (vault) => meteredVault(vault, clock),
      // Each invocation metered (function, simulated start, handler time), and the calendar reads
      // it makes told apart by its messages' reason.
      wrapHandler: async (fn, handler) => {
        const metered = (await timed(fn, async () => ({ handler }), clock)()).handler;
        return (...args: unknown[]) => handling.run(reasonOf(fn, args[0]), () => metered(...args));
      },
    }),
  ).catch((error: unknown) => {
    globalThis.fetch = realFetch;
    throw error;
  });
  try {
    const google = stack.google?.emulator?.url;
    if (google === undefined) throw new Error("the stack runs no Google emulator");
    const calendar = `${google}/_control/calendars/${encodeURIComponent(DEMO_GOOGLE_ACCOUNT)}/events`;
    const control = async (url: string, method: string, body: unknown = {}) => {
      const res = await realFetch(url, {
        method,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`);
    };
    const end = MONTH_START + days * DAY;
    // The month as it is before any edit, each event under a stable id.
    for (const e of eventsFor(0, days, 0)) {
      await control(calendar, "POST", {
        id: demoEventId(e.uid),
        summary: e.summary,
        start: { dateTime: new Date(e.start).toISOString() },
        end: { dateTime: new Date(e.end).toISOString() },
        ...(e.busyStatus === "OOF" ? { eventType: "outOfOffice" } : {}),
      });
    }
    // Install as U001, then connect Google (auto-approved consent), as a person would.
    const jar = new Jar();
    const install = await jar.visit(`${stack.url}/install`);
    const authorize = new URL(install.headers.get("location") ?? "");
    authorize.searchParams.set("as", USER);
    await jar.follow(authorize.href);
    const landed = await jar.follow(`${stack.url}/connect/google`);
    if (!landed.endsWith("/settings?notice=calendar_connected")) {
      throw new Error(`connecting Google ended at ${landed}`);
    }
    const deliver = async () => {
      await control(`${google}/_control/flush`, "POST");
      await stack.settle();
      await stack.advance(0);
    };
    await deliver();
    const from = clock.now();
    resetDynamoCounts();
    resetKmsCounts();
    resetInvocations();
    const sent0 = { ...stack.queues.sync.stats() };
    const transitions0 = stack.queues.transition.stats().sent;
    counting = true;
    let edits = 0;
    const user = benchUserId(0);
    for (const at of editsFor(0, days)) {
      if (at < from) continue;
      await stack.advanceTo(at);
      const day = Math.floor((at - MONTH_START) / DAY);
      const event = (name: string) =>
        `${calendar}/${encodeURIComponent(demoEventId(`${name}-${day}-${user}@bench`))}`;
      if (day % 7 === 1) {
        // The one-on-one moves from 16:00 to 16:30 (as the ICS feed's does).
        const start = MONTH_START + day * DAY + 16.5 * 60 * MINUTE;
        await control(event("one-on-one"), "PATCH", {
          start: { dateTime: new Date(start).toISOString() },
          end: { dateTime: new Date(start + 30 * MINUTE).toISOString() },
        });
      } else {
        await control(`${event("review")}/cancel`, "POST");
      }
      edits++;
      await deliver();
    }
    await stack.advanceTo(end);
    await deliver();
    counting = false;
    calls.inheritedTokenInstances = [...tokenUse.apiCallers].filter(
      (instance) => !tokenUse.refreshers.has(instance),
    ).length;
    return {
      provider: "google",
      userDays: (end - from) / DAY,
      invocations: invocations(),
      dynamo: dynamoCounts(),
      queueMessages: {
        sync: stack.queues.sync.stats().sent - sent0.sent,
        transition: stack.queues.transition.stats().sent - transitions0,
      },
      calls,
      kms: kmsCounts(),
      edits,
      wallS: (performance.now() - t0) / 1000,
    };
  } finally {
    await stack.close();
    globalThis.fetch = realFetch;
  }
}
