import { AsyncLocalStorage } from "node:async_hooks";
import { randomBytes } from "node:crypto";
import type { Context, ScheduledEvent, SQSEvent } from "aws-lambda";
import { type App, composeLocalApp, frozenAfterReturn } from "#devstack/app";
import { type Gateway, startGateway } from "#devstack/http-gateway";
import { LOCAL_REGION } from "#devstack/lambda-context";
import { type LocalLambdas, localLambdas } from "#devstack/lambdas";
import { DelayQueue } from "#devstack/queue";
import { LambdaRuntime } from "#devstack/runtime";
import { every } from "#devstack/schedules";
import { parseWorkspace, type RunningEmulator, startEmulator } from "#emulator/server";
import type { SyncMessage, TransitionMessage } from "#lib/app/contracts";
import { MetricsRecorder } from "#lib/app/metrics/recorder";
import type { ManualClock } from "#lib/core/clock";
import type { StatusValue } from "#lib/core/types";
import { type IcsServer, startIcsServer } from "#lib/local/ics-server";
import { channelToken, newChannelId, signV0 } from "../../lib/webhooks";
import { type SoakDynamo, startSoakDynamo } from "./dynamo";
import { type EventRelay, startEventRelay } from "./event-relay";
import { emailOf, seededRng } from "./scenario";
import { SoakScheduler } from "./scheduler";

/** One `users.profile.set` (or other method) call that Statuspilot made, as the soak saw it. */
export interface ServiceCall {
  seq: number;
  /** Simulated epoch ms when the call was answered. */
  at: number;
  method: string;
  user: string;
  /** The status the request asked for (undefined when the body had none). */
  status?: StatusValue;
  /** Raw request status fields, to catch half-clears before any normalisation. */
  raw?: { text: unknown; emoji: unknown; expiration: unknown };
  outcome: string;
  /** Position among everything the soak observed, when the call was sent. */
  order: number;
  /** The worker died right after this call was answered. */
  crashed?: boolean;
}

/** One `user_change` delivery the events handler answered. */
export interface EventHandled {
  at: number;
  eventId: string;
  user: string;
  status: StatusValue;
  statusCode: number;
  /** Position among everything the soak observed, when the handler answered. */
  order: number;
}

export interface HarnessUser {
  id: string;
  tz: string;
  feedPath: string;
}

export interface HarnessOptions {
  clock: ManualClock;
  team: string;
  users: HarnessUser[];
  seed: number;
  /**
   * Share of queue sends delivered twice, as SQS standard's at-least-once may (1% unless
   * given), so the soak checks the workers tolerate duplicates.
   */
  duplicateRate?: number;
  /** Prints nothing unless given. */
  onTaskError?: (error: unknown) => void;
  /** Told what is still busy when nothing has finished for a while (real time). */
  onStall?: (report: string) => void;
}

const TABLE = "statuspilot-soak";
const APP_ID = "A0SOAK";
const appToken = (user: string) => `xoxp-soak-app-${user}`;
const clientToken = (user: string) => `xoxp-soak-client-${user}`;

type Invoke<E> = (event: E, context: Context) => Promise<unknown>;

/**
 * The whole system in one process on a manual clock: dynalite, the emulator, the real HTTP
 * handlers behind the local API gateway, the real queue and schedule handlers fed by in-process
 * delay queues, and an ICS feed server. Every handler is made by its factory over the harness's
 * App and runs through devstack's Lambda runtime (each function's timeout, no work after it
 * returns). The service client's fetch is wrapped to record every
 * call and, once, to kill the transition worker right after the service accepted a write.
 */
export class SoakHarness {
  readonly calls: ServiceCall[] = [];
  readonly events: EventHandled[] = [];
  readonly taskErrors: string[] = [];
  scheduler!: SoakScheduler;
  emulator!: RunningEmulator;
  relay!: EventRelay;
  gateway!: Gateway;
  ics!: IcsServer;
  app!: App;
  queues!: { transition: DelayQueue<TransitionMessage>; sync: DelayQueue<SyncMessage> };
  adminApiKey = randomBytes(16).toString("hex");
  readonly hooks = new Map<string, { channelId: string; secret: string }>();
  crash: { user: string; after: number; at?: number } | undefined;

  private dynamo!: SoakDynamo;
  private readonly realFetch = globalThis.fetch;
  private inFlight = 0;
  /** Requests the harness itself has open (pushes, admin calls, the users' own sets). */
  private readonly outbound = new Map<number, { what: string; since: number }>();
  private outboundSeq = 0;
  /** Rejecters of the dead worker's unanswered fetches, released at close. */
  private readonly hung: Array<(error: Error) => void> = [];
  /** What the killed invocations were still running, awaited at close. */
  private readonly zombies: Array<Promise<unknown>> = [];
  private invocations = 0;
  private order = 0;
  private readonly sweepsAt = new Set<number>();
  private readonly invocation = new AsyncLocalStorage<number>();
  private readonly killers = new Map<number, (error: Error) => void>();
  private runtime!: LambdaRuntime;
  private lambdas!: LocalLambdas;

  constructor(private readonly options: HarnessOptions) {}

  get clock(): ManualClock {
    return this.options.clock;
  }

  async start(): Promise<void> {
    const { clock } = this.options;
    this.scheduler = new SoakScheduler({
      clock,
      onError: (error) => {
        this.taskErrors.push(
          error instanceof Error ? `${error.name}: ${error.message}` : String(error),
        );
        this.options.onTaskError?.(error);
      },
      busy: () => this.busy(),
      onStall: (waitedMs) => this.options.onStall?.(this.describeBusy(waitedMs)),
    });
    this.dynamo = await startSoakDynamo(TABLE);
    this.runtime = new LambdaRuntime({ clock });
    this.lambdas = localLambdas({
      source: () => this.app,
      runtime: this.runtime,
      wrap: (fn, handler) => (fn === "serviceEvents" ? this.observedEvents(handler) : handler),
    });
    this.gateway = await startGateway({
      routes: this.lambdas.routes,
      clock,
      port: 0,
      invoke: this.lambdas.invokeRoute,
    });
    this.ics = await startIcsServer({ clock, port: 0 });
    this.relay = await startEventRelay({
      clock,
      scheduler: this.scheduler,
      target: `${this.gateway.url}/service/events`,
      // Its own stream, so holding events does not shift the scenario's or the emulator's.
      rng: seededRng(this.options.seed ^ 0x5eed),
      fetch: this.realFetch,
    });
    const signingSecret = randomBytes(24).toString("hex");
    this.emulator = await startEmulator({
      workspace: this.workspace(signingSecret),
      clock,
      port: 0,
      seed: this.options.seed,
      // Under a manual clock the harness sweeps at each expiry instant itself.
      expirySweepMs: 0,
      eventRetryDelaysMs: [0, 20, 40],
      // A held call drops soon in real time; the client sees it as a failed call either way.
      faultTimeoutMs: 150,
    });
    const transitionWorker = this.lambdas.background<SQSEvent>("transitionWorker");
    const syncWorker = this.lambdas.background<SQSEvent>("syncWorker");
    this.queues = {
      transition: new DelayQueue<TransitionMessage>({
        name: "statuspilot-soak-transition",
        scheduler: this.scheduler,
        consume: (event) => this.crashable(() => transitionWorker(event)),
        duplicateRate: this.options.duplicateRate ?? 0.01,
        seed: this.options.seed ^ 0xd0b1e,
      }),
      sync: new DelayQueue<SyncMessage>({
        name: "statuspilot-soak-sync",
        scheduler: this.scheduler,
        consume: syncWorker,
        duplicateRate: this.options.duplicateRate ?? 0.01,
        seed: this.options.seed ^ 0xd0b1f,
      }),
    };
    this.app = composeLocalApp(
      {
        tableName: TABLE,
        dynamoEndpoint: this.dynamo.endpoint,
        region: LOCAL_REGION,
        serviceBaseUrl: this.emulator.apiBase,
        signingSecret,
        tokenKey: randomBytes(32).toString("base64"),
        adminApiKey: this.adminApiKey,
        logLevel: "ERROR",
        appId: APP_ID,
      },
      {
        clock,
        ...frozenAfterReturn(this.runtime, {
          transitionQueue: this.queues.transition,
          syncQueue: this.queues.sync,
          fetch: this.recordingFetch,
        }),
        // The feeds are served on 127.0.0.1, as in the local stack.
        allowPrivateSourceAddresses: true,
        // Metrics in memory: EMF lines on stdout would bury the report.
        metrics: new MetricsRecorder(),
      },
    );
  }

  /** Registers every user with an ICS source and a signed generic hook, then syncs them. */
  async registerUsers(): Promise<void> {
    const pilot = this.app.pilot;
    if (!pilot) throw new Error("the composition root offers no user administration");
    const position = new Map(this.options.users.map((u, i) => [u.id, i]));
    const register = async (u: HarnessUser) => {
      const key = { team: this.options.team, user: u.id };
      // Hooks sign with the channel's token, derived from its (random) id.
      const channelId = newChannelId();
      const secret = channelToken(await this.app.signingSecret(), channelId);
      await pilot.upsertUser({
        key,
        tz: u.tz,
        token: appToken(u.id),
        // Their address on invitations, so the sync finds their own answer (PARTSTAT).
        emails: [emailOf(u.id)],
        sources: [{ id: "cal1", url: this.ics.feedUrl(u.feedPath), kind: "ics", secret }],
        mode: "auto",
      });
      await pilot.putChannel(channelId, { key, sourceId: "cal1", secret });
      this.hooks.set(u.id, { channelId, secret });
      await this.queues.sync.send(
        {
          team: key.team,
          user: u.id,
          sourceId: "cal1",
          reason: "manual",
        },
        // First syncs spread over the 10 minutes after registration, three seconds apart, as
        // users connecting their calendars would; 200 feeds parsed in one instant only measure
        // the event loop's lag (their fetches time out in real time).
        { delaySeconds: ((position.get(u.id) ?? 0) * 3) % 600 },
      );
    };
    // A few at a time: an admin script would not register 200 users one round trip each.
    const waiting = [...this.options.users];
    const lane = async () => {
      for (let u = waiting.shift(); u !== undefined; u = waiting.shift()) await register(u);
    };
    await Promise.all(Array.from({ length: 8 }, lane));
  }

  /** Starts the minute tick and the five-minute poll as EventBridge schedules would. */
  startSchedules(): void {
    const tick = this.lambdas.background<ScheduledEvent>("tick");
    const poll = this.lambdas.background<ScheduledEvent>("poll");
    // On the minute and on the five minutes, as EventBridge's rate rules fire.
    const onThe = (ms: number) => Math.ceil(this.clock.now() / ms) * ms;
    every(this.scheduler, { ms: 60_000, firstAt: onThe(60_000), rule: "soak-tick" }, tick);
    every(this.scheduler, { ms: 5 * 60_000, firstAt: onThe(5 * 60_000), rule: "soak-poll" }, poll);
  }

  /** A signed push on the source's generic hook, as a calendar provider's relay would send. */
  async push(user: string): Promise<number> {
    const hook = this.hooks.get(user);
    if (!hook) throw new Error(`no hook for ${user}`);
    const body = JSON.stringify({ changed: "cal1" });
    const ts = String(Math.floor(this.clock.now() / 1000));
    const res = await this.trackedFetch(
      `push ${user}`,
      `${this.gateway.url}/hooks/generic/${hook.channelId}`,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-statuspilot-timestamp": ts,
          "x-statuspilot-signature": signV0(hook.secret, ts, body),
        },
        body,
      },
    );
    await res.arrayBuffer();
    return res.status;
  }

  /** Schedules out-of-office through the admin API. */
  async scheduleOutOfOffice(user: string, start: number, end: number): Promise<number> {
    const res = await this.trackedFetch(
      `out-of-office ${user}`,
      `${this.gateway.url}/admin/users/${this.options.team}/${user}/ooo`,
      {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": this.adminApiKey },
        body: JSON.stringify({ start, end }),
      },
    );
    await res.arrayBuffer();
    return res.status;
  }

  /**
   * The user sets (or clears) their own status in the chat app: a call with their own session
   * token, retried through injected faults. Returns whether the service accepted it.
   */
  async setOwnStatus(user: string, status: StatusValue, omitExpiration = false): Promise<boolean> {
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        const res = await this.trackedFetch(
          `own set ${user}`,
          `${this.emulator.apiBase}/users.profile.set`,
          {
            method: "POST",
            headers: {
              "content-type": "application/json; charset=utf-8",
              authorization: `Bearer ${clientToken(user)}`,
            },
            body: JSON.stringify({
              profile: {
                status_text: status.text,
                status_emoji: status.emoji,
                ...(omitExpiration ? {} : { status_expiration: status.expiration }),
              },
            }),
          },
        );
        const doc = (await res.json()) as { ok?: boolean };
        if (doc.ok === true) {
          this.sweepAt(status.expiration);
          return true;
        }
      } catch {
        // A dropped connection (timeout fault): the status was not applied; try again.
      }
    }
    return false;
  }

  /** A sequence shared by calls, events and the scenario's own actions. */
  nextOrder(): number {
    this.order += 1;
    return this.order;
  }

  /** Every user's status as the service holds it now, from one read of its state. */
  profileStatuses(): Record<string, StatusValue> {
    const out: Record<string, StatusValue> = {};
    for (const [id, p] of Object.entries(this.emulator.state().profiles))
      out[id] = { text: p.status_text, emoji: p.status_emoji, expiration: p.status_expiration };
    return out;
  }

  async close(): Promise<void> {
    // The killed worker's fetch never answered; fail it now so the invocation ends (and the
    // Lambda runtime's own timeout timer with it) instead of holding the process open.
    for (const reject of this.hung.splice(0)) reject(new Error("the soak is over"));
    await Promise.race([
      Promise.allSettled(this.zombies),
      new Promise((resolve) => setTimeout(resolve, 5_000).unref()),
    ]);
    this.queues?.transition.close();
    this.queues?.sync.close();
    this.scheduler?.close();
    await this.emulator?.close();
    await this.relay?.close();
    await this.gateway?.close();
    await this.ics?.close();
    await this.dynamo?.close();
  }

  // ---- internals -------------------------------------------------------------------------

  private workspace(signingSecret: string) {
    const users = this.options.users.map((u) => ({
      id: u.id,
      name: u.id.toLowerCase(),
      role: "member",
      tz: u.tz,
    }));
    const scopes = ["users.profile:write", "users.profile:read"];
    const tokens = this.options.users.flatMap((u) => [
      { token: appToken(u.id), type: "user", user: u.id, scopes, state: "active" },
      { token: clientToken(u.id), type: "user", user: u.id, scopes, state: "active" },
    ]);
    return parseWorkspace({
      team: {
        id: this.options.team,
        name: "Soak",
        plan: "pro",
        profile_source: "api",
        enterprise: false,
      },
      emoji: [],
      fields: [],
      users,
      tokens,
      apps: [
        {
          id: APP_ID,
          signing_secret: signingSecret,
          manifest: {
            display_information: { name: "Statuspilot" },
            settings: {
              event_subscriptions: {
                request_url: this.relay.url,
                user_events: ["user_change"],
              },
            },
          },
          collaborators: [],
        },
      ],
    });
  }

  /** Runs one transition-worker invocation that the crash can kill, as a dead process would be. */
  private crashable(run: () => Promise<unknown>): Promise<unknown> {
    this.invocations += 1;
    const id = this.invocations;
    let kill: (error: Error) => void = () => {};
    const killed = new Promise<never>((_, reject) => {
      kill = reject;
    });
    return this.invocation
      .run(id, () => {
        const work = run();
        this.killers.set(id, (error) => {
          this.zombies.push(work.catch(() => undefined));
          kill(error);
        });
        return Promise.race([work, killed]);
      })
      .finally(() => this.killers.delete(id));
  }

  /** The events function's handler, observed: what each user_change said and how it answered. */
  // biome-ignore lint/complexity/noBannedTypes: the handler is whatever middy built.
  private observedEvents(handler: Function): Invoke<{ body?: string; isBase64Encoded?: boolean }> {
    const events = handler as Invoke<{ body?: string; isBase64Encoded?: boolean }>;
    return async (event, context) => {
      const result = (await events(event, context)) as { statusCode?: number };
      this.noteEvent(event, result?.statusCode ?? 0);
      return result;
    };
  }

  private noteEvent(event: { body?: string; isBase64Encoded?: boolean }, statusCode: number): void {
    const raw = event.isBase64Encoded
      ? Buffer.from(event.body ?? "", "base64").toString("utf8")
      : (event.body ?? "");
    try {
      const doc = JSON.parse(raw) as {
        event_id?: string;
        event?: { type?: string; user?: { id?: string; profile?: Record<string, unknown> } };
      };
      const p = doc.event?.user?.profile;
      if (doc.event?.type !== "user_change" || !p || !doc.event?.user?.id) return;
      this.events.push({
        at: this.clock.now(),
        eventId: String(doc.event_id),
        user: doc.event.user.id,
        status: {
          text: String(p.status_text ?? ""),
          emoji: String(p.status_emoji ?? ""),
          expiration: Number(p.status_expiration ?? 0),
        },
        statusCode,
        order: this.nextOrder(),
      });
    } catch {
      // Not JSON: the handler refused it; nothing to observe.
    }
  }

  /** The service client's fetch: records calls to the service, and carries out the crash. */
  private readonly recordingFetch: typeof fetch = async (input, init) => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const base = this.emulator.apiBase;
    if (!url.startsWith(base)) return this.realFetch(input, init);
    const method = url.slice(base.length + 1);
    const headers = new Headers(init?.headers);
    const token = /^Bearer\s+(\S+)$/i.exec(headers.get("authorization") ?? "")?.[1] ?? "";
    const user = headers.get("x-svc-user") ?? token.replace(/^xoxp-soak-app-/, "");
    let raw: ServiceCall["raw"];
    try {
      const sent = init?.body;
      const text =
        typeof sent === "string"
          ? sent
          : sent instanceof Uint8Array
            ? new TextDecoder().decode(sent)
            : "{}";
      const body = JSON.parse(text) as {
        profile?: Record<string, unknown>;
      };
      if (body.profile) {
        raw = {
          text: body.profile.status_text,
          emoji: body.profile.status_emoji,
          expiration: body.profile.status_expiration,
        };
      }
    } catch {
      raw = undefined;
    }
    const call: ServiceCall = {
      seq: this.calls.length + 1,
      at: this.clock.now(),
      method,
      user,
      ...(raw
        ? {
            raw,
            status: {
              text: String(raw.text ?? ""),
              emoji: String(raw.emoji ?? ""),
              expiration: Number(raw.expiration ?? 0),
            },
          }
        : {}),
      outcome: "pending",
      order: this.nextOrder(),
    };
    this.calls.push(call);
    this.inFlight++;
    try {
      const res = await this.realFetch(input, init);
      const doc = (await res.clone().json()) as { ok?: boolean; error?: string };
      call.outcome = doc.ok === true ? "ok" : String(doc.error ?? `http_${res.status}`);
      call.at = this.clock.now();
      if (call.outcome === "ok" && call.status) this.sweepAt(call.status.expiration);
      const invocation = this.invocation.getStore();
      const crash = this.crash;
      if (
        crash !== undefined &&
        crash.at === undefined &&
        invocation !== undefined &&
        call.outcome === "ok" &&
        user === crash.user &&
        call.at >= crash.after
      ) {
        crash.at = call.at;
        call.crashed = true;
        this.killers.get(invocation)?.(
          new Error("worker crashed after the service accepted the write"),
        );
        // The dead worker never reads the answer nor records the outcome.
        return new Promise<Response>((_, reject) => this.hung.push(reject));
      }
      return res;
    } catch (error: unknown) {
      call.outcome = "network";
      throw error;
    } finally {
      this.inFlight--;
    }
  };

  /** Schedules the emulator's expiry sweep at a status's expiration, as its timer would run it. */
  private sweepAt(expirationS: number): void {
    const at = expirationS * 1000;
    if (expirationS <= 0 || at <= this.clock.now() || this.sweepsAt.has(at)) return;
    this.sweepsAt.add(at);
    this.scheduler.at(at, async () => {
      this.sweepsAt.delete(at);
      await this.emulator.sweepExpired();
    });
  }

  /** Work in flight that no scheduled task awaits: the soak moves the clock only when it is 0. */
  private busy(): number {
    return (
      this.inFlight +
      this.outbound.size +
      this.gateway.inFlight() +
      this.emulator.pendingDeliveries() +
      this.relay.inFlight() +
      this.queues.transition.stats().inFlight +
      this.queues.sync.stats().inFlight +
      this.dynamo.inFlight()
    );
  }

  /** What a stalled soak waits on, for the progress log. */
  private describeBusy(waitedMs: number): string {
    const now = performance.now();
    const pendingCalls = this.calls
      .filter((c) => c.outcome === "pending" && !c.crashed)
      .slice(0, 5)
      .map((c) => `${c.method} ${c.user}`);
    const outbound = [...this.outbound.values()]
      .slice(0, 5)
      .map((o) => `${o.what} ${Math.round(now - o.since)} ms`);
    const dynamo = this.dynamo.oldest(5).map((r) => `${r.operation} ${r.waitingMs} ms`);
    return [
      `soak: nothing finished for ${(waitedMs / 1000).toFixed(0)} s at simulated ${new Date(this.clock.now()).toISOString()}`,
      `  tasks running ${this.scheduler.runningCount()}, pending ${this.scheduler.pending()}`,
      `  service calls in flight ${this.inFlight} [${pendingCalls.join(", ")}]`,
      `  harness requests ${this.outbound.size} [${outbound.join(", ")}]`,
      `  gateway requests ${this.gateway.inFlight()}, event deliveries ${this.emulator.pendingDeliveries()}, relay ${this.relay.inFlight()}`,
      `  queue batches: transition ${this.queues.transition.stats().inFlight}, sync ${this.queues.sync.stats().inFlight}`,
      `  dynalite requests ${this.dynamo.inFlight()} [${dynamo.join(", ")}]`,
    ].join("\n");
  }

  /** The real fetch, counted as busy until its body has been read by the caller's await. */
  private async trackedFetch(what: string, url: string, init: RequestInit): Promise<Response> {
    const id = this.outboundSeq++;
    this.outbound.set(id, { what, since: performance.now() });
    try {
      const res = await this.realFetch(url, init);
      // Buffered here so the request counts as busy until its answer is complete.
      const body = await res.arrayBuffer();
      return new Response(body.byteLength > 0 ? body : null, {
        status: res.status,
        headers: res.headers,
      });
    } finally {
      this.outbound.delete(id);
    }
  }
}
