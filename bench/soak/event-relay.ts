import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Scheduler } from "#devstack/scheduler";
import type { Clock } from "#lib/core/clock";
import type { Rng } from "./scenario";

export interface EventRelayOptions {
  clock: Clock;
  scheduler: Scheduler;
  /** Where deliveries go: the events endpoint behind the local API gateway. */
  target: string;
  rng: Rng;
  fetch: typeof fetch;
}

export interface HoldPolicy {
  /** Fraction of deliveries held back. */
  rate: number;
  /** Held deliveries are released uniformly within this many simulated milliseconds. */
  maxMs: number;
}

/** One `user_change` the relay is to lose: acknowledged to the service, never forwarded. */
export interface LoseRule {
  user: string;
  /** Only a delivery the relay receives at this simulated instant (the user's own action). */
  at: number;
  /** Only an event whose status is empty: the user's clear. */
  cleared: boolean;
}

export interface EventRelayStats {
  /** Deliveries passed straight through, the service waiting for the answer. */
  passed: number;
  held: number;
  /** Held deliveries the endpoint accepted when released. */
  released: number;
  /** Held deliveries the endpoint refused on every release attempt. */
  lost: number;
  /** The longest hold, in simulated milliseconds. */
  maxHeldMs: number;
  /** Events lost on purpose by a `LoseRule` (their duplicates and retries lost with them). */
  discarded: number;
}

export interface EventRelay {
  /** The request URL to give the service for event subscriptions. */
  url: string;
  setHold(policy: HoldPolicy): void;
  /** Loses the first `user_change` that matches, as a service dropping it would. */
  lose(rule: LoseRule): void;
  /** Deliveries being forwarded now (held ones waiting for their instant are not counted). */
  inFlight(): number;
  stats(): EventRelayStats;
  close(): Promise<void>;
}

/** Headers a delivery carries that the endpoint reads; everything else is transport. */
const FORWARDED = [
  "content-type",
  "x-svc-request-timestamp",
  "x-svc-signature",
  "x-svc-retry-num",
  "x-svc-retry-reason",
];

/** A released delivery the endpoint refuses is tried again this much later (simulated). */
const RELEASE_RETRY_MS = 30_000;

const readBody = (req: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });

/**
 * Sits between the service and the events endpoint and makes deliveries late in simulated time:
 * a held delivery is acknowledged to the service at once (so it never retries it) and reaches
 * the endpoint up to `maxMs` of simulated time later, after deliveries that were sent after it.
 * The rest pass straight through with the endpoint's own answer. Held deliveries keep their
 * original signature and timestamp, as a delivery stuck in transit would, so holds stay well
 * inside the endpoint's five-minute replay window.
 */
export async function startEventRelay(options: EventRelayOptions): Promise<EventRelay> {
  let policy: HoldPolicy = { rate: 0, maxMs: 0 };
  let inFlight = 0;
  const counts: EventRelayStats = {
    passed: 0,
    held: 0,
    released: 0,
    lost: 0,
    maxHeldMs: 0,
    discarded: 0,
  };
  let rules: LoseRule[] = [];
  const discardedIds = new Set<string>();

  /** Whether this delivery is one to lose: it matches a rule, or repeats an event already lost. */
  const toLose = (body: Buffer): boolean => {
    if (rules.length === 0 && discardedIds.size === 0) return false;
    let doc: {
      event_id?: string;
      event?: { type?: string; user?: { id?: string; profile?: Record<string, unknown> } };
    };
    try {
      doc = JSON.parse(body.toString("utf8"));
    } catch {
      return false;
    }
    const id = String(doc.event_id ?? "");
    if (discardedIds.has(id)) return true;
    const event = doc.event;
    if (event?.type !== "user_change") return false;
    const profile = event.user?.profile ?? {};
    const cleared = profile.status_text === "" && profile.status_emoji === "";
    const now = options.clock.now();
    // A rule's instant has passed: the service dropped the event itself before it got here.
    rules = rules.filter((r) => r.at >= now);
    const rule = rules.find(
      (r) => r.user === event.user?.id && r.at === now && (!r.cleared || cleared),
    );
    if (rule === undefined) return false;
    rules = rules.filter((r) => r !== rule);
    discardedIds.add(id);
    counts.discarded++;
    return true;
  };

  const forward = async (headers: Record<string, string>, body: Buffer) => {
    inFlight++;
    try {
      // A copy typed as plain bytes: fetch's types (DOM's, with preact in the program) take no Buffer.
      const res = await options.fetch(options.target, {
        method: "POST",
        headers,
        body: new Uint8Array(body),
      });
      const text = await res.text();
      return { status: res.status, text, type: res.headers.get("content-type") ?? "" };
    } finally {
      inFlight--;
    }
  };

  const release = (headers: Record<string, string>, body: Buffer, attemptsLeft: number) => {
    return async () => {
      let status = 0;
      try {
        status = (await forward(headers, body)).status;
      } catch {
        // The endpoint was unreachable; counted below like a refusal.
      }
      if (status >= 200 && status < 300) counts.released++;
      else if (attemptsLeft > 0) {
        options.scheduler.at(
          options.clock.now() + RELEASE_RETRY_MS,
          release(headers, body, attemptsLeft - 1),
        );
      } else counts.lost++;
    };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    const headers: Record<string, string> = {};
    for (const name of FORWARDED) {
      const value = req.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    if (toLose(body)) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true }));
      return;
    }
    if (policy.rate > 0 && options.rng.chance(policy.rate)) {
      const holdMs = Math.round(options.rng.next() * policy.maxMs);
      counts.held++;
      counts.maxHeldMs = Math.max(counts.maxHeldMs, holdMs);
      options.scheduler.at(options.clock.now() + holdMs, release(headers, body, 1));
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true }));
      return;
    }
    counts.passed++;
    const answer = await forward(headers, body);
    res.writeHead(answer.status, answer.type ? { "content-type": answer.type } : {});
    res.end(answer.text);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      // The endpoint could not be reached: the service sees a failed attempt and retries.
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/service/events`,
    setHold: (next) => {
      policy = next;
    },
    lose: (rule) => {
      rules.push(rule);
    },
    inFlight: () => inFlight,
    stats: () => ({ ...counts }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
