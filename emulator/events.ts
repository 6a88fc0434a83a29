import { createHmac } from "node:crypto";
import type { Clock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";

export interface EventTarget {
  appId: string;
  requestUrl: string;
  signingSecret: string;
}

export interface DeliveryOptions {
  clock: Clock;
  log: Log;
  random: () => number;
  /** Delays before retries 1, 2, 3 (the real platform: immediately, 1 min, 5 min). */
  retryDelaysMs: number[];
  /** How long the receiver has to answer before the attempt counts as failed. */
  attemptTimeoutMs: number;
  faults: () => { dropEvent: number; duplicateEvent: number; delayEventMs: [number, number] };
  fetch?: typeof fetch;
}

export interface DeliveryRecord {
  eventId: string;
  appId: string;
  attempts: number;
  outcome: "pending" | "delivered" | "failed" | "dropped";
  lastStatus?: number;
}

/** What an app needs to receive an event: its id, signing secret, manifest and legacy token. */
export interface EventApp {
  app: { id: string; signing_secret: string; verification_token?: string | undefined };
  manifest: Record<string, unknown>;
}

/**
 * Where an app receives `eventType`: its request URL when the manifest lists the event under
 * `settings.event_subscriptions.user_events` or `bot_events`; undefined when it is not subscribed.
 */
export function subscribedTarget(state: EventApp, eventType: string): EventTarget | undefined {
  const settings = state.manifest.settings as
    | { event_subscriptions?: Record<string, unknown> }
    | undefined;
  const subs = settings?.event_subscriptions;
  const requestUrl = subs?.request_url;
  const listed = (key: string) => {
    const list = subs?.[key];
    return Array.isArray(list) && list.includes(eventType);
  };
  if (typeof requestUrl !== "string" || !(listed("user_events") || listed("bot_events")))
    return undefined;
  return { appId: state.app.id, requestUrl, signingSecret: state.app.signing_secret };
}

/** The Events API envelope (`event_callback`) that carries one event to one app. */
export function eventEnvelope(args: {
  app: EventApp["app"];
  teamId: string;
  eventId: string;
  eventTime: number;
  event: Record<string, unknown>;
}): Record<string, unknown> & { event_id: string } {
  return {
    token: args.app.verification_token ?? `vt-${args.app.id}`,
    team_id: args.teamId,
    api_app_id: args.app.id,
    type: "event_callback",
    event_id: args.eventId,
    event_time: args.eventTime,
    event: args.event,
  };
}

/** Signs like the real platform: v0=HMAC-SHA256(secret, "v0:<ts>:<raw body>") in hex. */
export function signEvent(secret: string, timestamp: number, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

type AttemptResult = { ok: true; status: number } | { ok: false; reason: string; status?: number };

/**
 * Delivers events over HTTP, asynchronously, with the platform's retries. Tests wait on
 * `flush()`; `pending()` counts deliveries (first attempts and retries) not yet settled.
 */
export class EventDispatcher {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly records: DeliveryRecord[] = [];
  private closed = false;

  constructor(private readonly opts: DeliveryOptions) {}

  dispatch(target: EventTarget, envelope: Record<string, unknown> & { event_id: string }): void {
    const faults = this.opts.faults();
    const record: DeliveryRecord = {
      eventId: envelope.event_id,
      appId: target.appId,
      attempts: 0,
      outcome: "pending",
    };
    this.records.push(record);
    if (faults.dropEvent > 0 && this.opts.random() < faults.dropEvent) {
      record.outcome = "dropped";
      this.opts.log.info("event dropped by fault", {
        eventId: envelope.event_id,
        app: target.appId,
      });
      return;
    }
    const copies = faults.duplicateEvent > 0 && this.opts.random() < faults.duplicateEvent ? 2 : 1;
    const [min, max] = faults.delayEventMs;
    for (let i = 0; i < copies; i++) {
      const delay = max > 0 ? Math.round(min + this.opts.random() * (max - min)) : 0;
      const body = JSON.stringify(envelope);
      this.track(this.run(target, body, record, delay));
    }
  }

  pending(): number {
    return this.inFlight.size;
  }

  deliveries(): DeliveryRecord[] {
    return this.records.map((r) => ({ ...r }));
  }

  async flush(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  private track(p: Promise<void>): void {
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  private sleep(ms: number): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.add(t);
    });
  }

  private async run(
    target: EventTarget,
    body: string,
    record: DeliveryRecord,
    delayMs: number,
  ): Promise<void> {
    await this.sleep(delayMs);
    const delays = this.opts.retryDelaysMs;
    let reason = "";
    for (let attempt = 0; attempt <= delays.length; attempt++) {
      if (this.closed) return;
      if (attempt > 0) {
        await this.sleep(delays[attempt - 1] ?? 0);
        if (this.closed) return;
      }
      record.attempts += 1;
      const result = await this.attempt(target, body, attempt, reason);
      if (result.ok) {
        record.outcome = "delivered";
        record.lastStatus = result.status;
        return;
      }
      reason = result.reason;
      if (result.status !== undefined) record.lastStatus = result.status;
      this.opts.log.warn("event delivery failed", { app: target.appId, attempt, reason });
    }
    record.outcome = "failed";
  }

  private async attempt(
    target: EventTarget,
    body: string,
    retryNum: number,
    reason: string,
  ): Promise<AttemptResult> {
    const timestamp = Math.floor(this.opts.clock.now() / 1000);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "x-svc-request-timestamp": String(timestamp),
      "x-svc-signature": signEvent(target.signingSecret, timestamp, body),
    };
    if (retryNum > 0) {
      headers["x-svc-retry-num"] = String(retryNum);
      headers["x-svc-retry-reason"] = reason;
    }
    try {
      const res = await (this.opts.fetch ?? fetch)(target.requestUrl, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(this.opts.attemptTimeoutMs),
      });
      await res.arrayBuffer().catch(() => undefined);
      return res.ok
        ? { ok: true, status: res.status }
        : { ok: false, reason: "http_error", status: res.status };
    } catch (err: unknown) {
      const timedOut = err instanceof Error && err.name === "TimeoutError";
      return { ok: false, reason: timedOut ? "http_timeout" : "connection_failed" };
    }
  }
}
