import { systemClock } from "#lib/app/compose/system-clock";
import { ManualClock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";
import { type LocalStack, startStack } from "#lib/local/stack";
import type { StackOptions } from "#lib/local/stack-types";
import { providerStackOptions } from "../support/provider-stack";
import { seededRng } from "./scenario";

/**
 * What the two renewal soaks (issue 14; bench/soak/renewal.ts for Google, renewal-graph.ts for
 * Microsoft Graph) share: the shape of the simulated month, the install-and-connect over HTTP,
 * and the month itself. Every simulated hour a fault of the provider's may be injected, the push
 * state is checked (never lapsed), and the calendar may change; each change must reach the
 * source through its push at the instant it happens (no push lost). The provider's own part is
 * a small set of hooks: which stack to start, how to connect, how to inject its faults, how to
 * edit its calendar, and what it counts.
 */

const MIN = 60_000;
export const HOUR = 60 * MIN;
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
 * as deployed would cost a month 43,200 tick runs; every 15 minutes keeps a renewal within
 * minutes of its instant, far inside the short channels' 20% margin.
 */
const SOAK_TICK_MS = 15 * MIN;

/** What the handlers' logs said of the push channels; the logs themselves are dropped. */
export interface UpkeepTally {
  created: number;
  renewed: number;
  recreated: number;
  failed: number;
}

/** A silent app log that counts the upkeep steps (the handlers log one line per upkeep). */
function tallyingLog(): { log: Log; tally: UpkeepTally } {
  const tally: UpkeepTally = { created: 0, renewed: 0, recreated: 0, failed: 0 };
  const step = (message: string, data?: Record<string, unknown>) => {
    if (message === "push channel upkeep") {
      const kind = data?.step;
      if (kind === "created" || kind === "renewed" || kind === "recreated") tally[kind]++;
    } else if (message === "push channel upkeep failed") tally.failed++;
  };
  return { log: { debug() {}, info: step, warn: step, error() {} }, tally };
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

/** Installs the app in `jar`'s browser as `user` (the service emulator's consent screen). */
export async function installAs(jar: Jar, stack: LocalStack, user: string): Promise<void> {
  const install = await jar.visit(`${stack.url}/install`);
  const authorize = new URL(install.headers.get("location") ?? "");
  authorize.searchParams.set("as", user);
  await jar.follow(authorize.href);
}

/** When the demo user's connected source of `kind` last synced (the admin API's view), or 0. */
async function sourceSyncedAt(stack: LocalStack, kind: string): Promise<number> {
  const view = await json(`${stack.url}/admin/users/T0DEMO/U001`, {
    headers: { "x-api-key": stack.adminApiKey },
  });
  const user = (view.user ?? {}) as { sources?: Array<{ kind: string; syncedAt?: number }> };
  return (user.sources ?? []).find((s) => s.kind === kind)?.syncedAt ?? 0;
}

/** The demo user's first push channel state (`/_local/status`), or "none". */
async function pushStateOf(stack: LocalStack): Promise<string> {
  const status = await json(`${stack.url}/_local/status/U001?team=T0DEMO`);
  const pushes = (status.pushes ?? []) as Array<{ state: string }>;
  return pushes[0]?.state ?? "none";
}

/**
 * Counts the fetches whose address `counts` picks, by wrapping the global fetch until `restore`.
 * Install it before the stack starts: the stack hands the handlers the fetch it finds then.
 */
export function countFetches(counts: (url: string) => boolean): {
  readonly made: number;
  restore(): void;
} {
  const realFetch = globalThis.fetch;
  let made = 0;
  globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (counts(url)) made++;
    return realFetch(input, init);
  }) as typeof fetch;
  return {
    get made() {
      return made;
    },
    restore() {
      globalThis.fetch = realFetch;
    },
  };
}

/** A provider's part of the month, bound to the running stack (its emulator). */
export interface RenewalHooks<Own> {
  /** Connects the installed user to the provider; the address the consent flow ended at. */
  connect(jar: Jar): Promise<string>;
  /** Sends the push notifications the provider's emulator holds. */
  flushPushes(): Promise<void>;
  /** Injects one of the provider's faults, drawn with `random`; its name, for the tally. */
  injectFault(random: () => number): Promise<string>;
  /** At the end of each simulated hour (faults that should last only that hour end here). */
  endHour?(): void;
  /** Adds a meeting to the connected calendar; its id. */
  createEvent(title: string, start: number, end: number): Promise<string>;
  cancelEvent(id: string): Promise<void>;
  /** After the month: the calendar reads the app made. */
  readsMade(): number;
  /** After the month: what only this provider reports. */
  ownFigures(): Promise<Own>;
}

export interface RenewalProvider<Own> {
  /** The source's kind in the admin API ("google", "graph"). */
  kind: string;
  /** The provider as the connect error names it ("Google"). */
  name: string;
  /** The soak as its progress lines name it. */
  label: string;
  /** The stack options that are this provider's (which emulators run, and how). */
  stackOptions: Partial<StackOptions>;
  /** Binds the hooks to the running stack; it may throw (the stack is closed then). */
  attach(stack: LocalStack): RenewalHooks<Own>;
}

/** What both soaks report; each adds its own figures. */
export interface RenewalOutcome {
  shape: RenewalShape;
  edits: number;
  upkeeps: UpkeepTally;
  pushesLost: Array<{ at: number; what: string }>;
  lapsed: Array<{ at: number; state: string }>;
  /** Calendar reads the app made, and how many a 15-minute poll alone would have made. */
  reads: { made: number; fifteenMinutePoll: number };
  faults: Record<string, number>;
  wallMs: number;
  passed: boolean;
}

/** Starts the stack on the shape's clock, runs the simulated month with `provider`'s hooks. */
export async function runRenewalHarness<Own extends object>(
  shape: RenewalShape,
  provider: RenewalProvider<Own>,
  progress?: (line: string) => void,
): Promise<RenewalOutcome & Own> {
  const wallStart = systemClock.now();
  const random = seededRng(shape.seed).next;
  const clock = new ManualClock(shape.start);
  const { log: appLog, tally } = tallyingLog();
  const stack: LocalStack = await startStack(
    providerStackOptions(clock, {
      // Statuses are not under test here; the tick runs the upkeeps, the poll as deployed.
      tickEveryMs: SOAK_TICK_MS,
      appLog,
      logLevel: "INFO",
      pushTtlMs: shape.channelTtlMs,
      ...provider.stackOptions,
    }),
  );
  const outcome: RenewalOutcome = {
    shape,
    edits: 0,
    upkeeps: tally,
    pushesLost: [],
    lapsed: [],
    reads: { made: 0, fifteenMinutePoll: Math.round((shape.days * DAY) / (15 * MIN)) },
    faults: {},
    wallMs: 0,
    passed: false,
  };
  let own: Own;
  try {
    const hooks = provider.attach(stack);
    const jar = new Jar();
    await installAs(jar, stack, "U001");
    const landed = await hooks.connect(jar);
    if (!landed.endsWith("/settings?notice=calendar_connected")) {
      throw new Error(`connecting ${provider.name} ended at ${landed}`);
    }
    const deliver = async () => {
      await hooks.flushPushes();
      await stack.settle();
      await stack.advance(0);
    };
    await deliver();
    const syncedAt = () => sourceSyncedAt(stack, provider.kind);
    const eventIds: string[] = [];
    const hours = shape.days * 24;
    for (let hour = 0; hour < hours; hour++) {
      await stack.advance(HOUR - 1000);
      if (random() < shape.faultRate) {
        const name = await hooks.injectFault(random);
        outcome.faults[name] = (outcome.faults[name] ?? 0) + 1;
      }
      await stack.advance(1000);
      const state = await pushStateOf(stack);
      if (state === "lapsed" || state === "none") outcome.lapsed.push({ at: clock.now(), state });
      if (random() < shape.editRate) {
        const now = clock.now();
        const cancel = eventIds.length > 3 && random() < 0.4;
        if (cancel) {
          const id = eventIds.splice(Math.floor(random() * eventIds.length), 1)[0] ?? "";
          await hooks.cancelEvent(id);
        } else {
          const start = now + Math.floor(random() * 5 * DAY);
          eventIds.push(await hooks.createEvent(`Meeting ${hour}`, start, start + 30 * MIN));
        }
        outcome.edits++;
        await deliver();
        // The push's sync ran at this very instant (a rate-limited or throttled one is
        // redelivered by the queue a little later: wait for the queue's retries before calling
        // it lost).
        let synced = await syncedAt();
        for (let retry = 0; retry < 6 && synced < now; retry++) {
          await stack.advance(30_000);
          await deliver();
          synced = await syncedAt();
        }
        if (synced < now) outcome.pushesLost.push({ at: now, what: cancel ? "cancel" : "create" });
      }
      hooks.endHour?.();
      if (hour % 24 === 23)
        progress?.(`${provider.label}: day ${(hour + 1) / 24} of ${shape.days}`);
    }
    own = await hooks.ownFigures();
    outcome.reads.made = hooks.readsMade();
  } finally {
    await stack.close();
  }
  outcome.wallMs = systemClock.now() - wallStart;
  outcome.passed = outcome.pushesLost.length === 0 && outcome.lapsed.length === 0;
  return { ...outcome, ...own };
}

/** The report lines both soaks print alike. */
export function editsLine(r: RenewalOutcome): string {
  return `  edits ${r.edits}, pushes lost ${r.pushesLost.length}, lapsed checks ${r.lapsed.length}`;
}

export function upkeepsLine(r: RenewalOutcome): string {
  const u = r.upkeeps;
  return `  upkeeps: created ${u.created}, renewed ${u.renewed}, recreated ${u.recreated}, failed (retried) ${u.failed}`;
}

/** The faults, the wall time and the verdict. */
export function closingLines(r: RenewalOutcome): string[] {
  const faults = Object.entries(r.faults)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  return [
    `  faults: ${faults || "none"}`,
    `  wall time ${(r.wallMs / 1000).toFixed(1)} s`,
    `  ${r.passed ? "PASS" : "FAIL"}`,
  ];
}
