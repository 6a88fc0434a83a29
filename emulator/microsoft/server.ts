/**
 * The Microsoft emulator: the identity platform's authorize and token endpoints and the Graph
 * endpoints Statuspilot uses (calendarView, its delta, subscriptions), over real HTTP on
 * 127.0.0.1 (port 0 picks a free one). Edits through the control surface or the programmatic API
 * notify subscriptions, as Outlook does. Expiry follows the injected clock. See the README's
 * "Microsoft Graph emulator (extension)".
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { systemClock } from "../../lib/app/system-clock";
import type { Clock } from "../../lib/core/clock";
import { seededRandom } from "../faults";
import { EventsApi } from "./events-api";
import { type Answer, graphError, readBody, send } from "./http";
import { IdentityPlatform, type MsClient } from "./identity";
import {
  type ChangeEntry,
  type EventInput,
  EventInputError,
  MicrosoftModel,
  type MsUser,
  type StoredSubscription,
} from "./model";
import { type DeliveryRecord, type LifecycleEvent, Notifier, validateEndpoint } from "./notifier";
import { type Caller, SubscriptionsApi } from "./subscriptions-api";

export type { MsClient } from "./identity";
export type { EventInput, MsUser, StoredSubscription } from "./model";

/** Faults, all off by default. Counts are spent one call at a time. */
export interface MsFaults {
  /** The next N Graph calls answer 429 with `Retry-After`. */
  throttleNext?: number;
  /** Each Graph call answers 429 with this probability (seeded). */
  throttleRate?: number;
  /** The `Retry-After` seconds of a throttled answer (default 1). */
  retryAfterS?: number;
  /** The next N delta calls with a `$deltatoken` answer 410: the sync state is gone. */
  expireDeltaNext?: number;
}

export interface MicrosoftEmulatorOptions {
  users?: MsUser[];
  clients?: MsClient[];
  tenantId?: string;
  clock?: Clock;
  port?: number;
  faults?: MsFaults;
  seed?: number;
  /** Graph's handshake limit is 10 s. */
  validationTimeoutMs?: number;
  notificationTimeoutMs?: number;
  /** Delays before notification retries (wall-clock). */
  notificationRetryDelaysMs?: number[];
  /** Real-time interval of the subscription expiry sweep; 0 disables it (every request sweeps too). */
  expirySweepMs?: number;
}

export const DEMO_TENANT_ID = "9188040d-6c67-4c5b-b112-36a304b66dad";
export const DEMO_USERS: MsUser[] = [
  {
    id: "6e7b768e-07e2-4810-8459-485f84f8f204",
    userPrincipalName: "adele@contoso.example",
    displayName: "Adele Vance",
  },
];
export const DEMO_CLIENTS: MsClient[] = [
  {
    clientId: "statuspilot-local",
    clientSecret: "statuspilot-local-secret",
    redirectUris: [],
    name: "Statuspilot (local)",
  },
];

export interface RunningMicrosoftEmulator {
  url: string;
  /** `<url>/common/oauth2/v2.0/authorize`, `…/token`, `<url>` + `/v1.0` for Graph. */
  authUrl: string;
  tokenUrl: string;
  graphBaseUrl: string;
  port: number;
  close(): Promise<void>;
  createEvent(userId: string, input: EventInput): string;
  updateEvent(userId: string, eventId: string, input: EventInput): void;
  deleteEvent(userId: string, eventId: string): void;
  setFaults(f: MsFaults): void;
  subscriptions(): StoredSubscription[];
  /** Removes a subscription as Outlook may, with a `subscriptionRemoved` lifecycle notification. */
  removeSubscription(id: string): boolean;
  /** Sends `reauthorizationRequired`; notifications are held until PATCH or reauthorize. */
  requireReauthorization(id: string): boolean;
  /** Sends a `missed` lifecycle notification. */
  sendMissed(id: string): boolean;
  /** The silent-stop fault: the subscription stays, but it never notifies again. */
  silence(id: string): boolean;
  /** The `invalid_grant` fault: the user's refresh tokens stop working. */
  revokeRefreshTokens(userId: string): number;
  /** Tokens as a consent would issue them (tests). */
  issueTokens(clientId: string, userId: string, scopes: string[]): Record<string, unknown>;
  /** Drops subscriptions past their expiration (also done before every request). */
  sweepExpired(): number;
  deliveries(): DeliveryRecord[];
  flushNotifications(): Promise<void>;
  /** Graph calls answered, by path (without query), for poll counting. */
  calls(): { at: number; method: string; path: string; status: number }[];
}

const GRAPH_READ_SCOPES = ["Calendars.Read", "Calendars.ReadWrite"];

export async function startMicrosoftEmulator(
  opts: MicrosoftEmulatorOptions = {},
): Promise<RunningMicrosoftEmulator> {
  const clock = opts.clock ?? systemClock;
  const now = () => clock.now();
  const model = new MicrosoftModel(opts.users ?? DEMO_USERS);
  const identity = new IdentityPlatform(model, opts.clients ?? DEMO_CLIENTS, now);
  const tenantId = opts.tenantId ?? DEMO_TENANT_ID;
  let faults: MsFaults = { ...opts.faults };
  const random = seededRandom(opts.seed ?? 1);
  let baseUrl = "";
  const notifier = new Notifier({
    clock,
    tenantId,
    validationTimeoutMs: opts.validationTimeoutMs ?? 10_000,
    attemptTimeoutMs: opts.notificationTimeoutMs ?? 10_000,
    retryDelaysMs: opts.notificationRetryDelaysMs ?? [60_000, 300_000, 900_000],
  });
  const events = new EventsApi(model, () => baseUrl);
  const subscriptions = new SubscriptionsApi({
    model,
    notifier,
    baseUrl: () => baseUrl,
    validate: (url) =>
      validateEndpoint(
        url,
        `emu-${Math.floor(random() * 1e12).toString(36)}`,
        opts.validationTimeoutMs ?? 10_000,
      ),
  });
  const callLog: { at: number; method: string; path: string; status: number }[] = [];

  const sweep = () => model.expireSubscriptions(now()).length;

  /** Notifies each live subscription of the user that listens to this change type. */
  function notify(userId: string, change: ChangeEntry): void {
    for (const sub of model.subscriptions.values()) {
      if (sub.userId !== userId || sub.expiresAt <= now() || sub.silenced) continue;
      if (!sub.changeTypes.includes(change.changeType)) continue;
      if (sub.needsReauthorization) {
        sub.heldChanges++;
        continue;
      }
      notifier.change(sub, change.changeType, change.eventId, change.after);
    }
  }

  function throttled(): Answer | undefined {
    const hit =
      (faults.throttleNext ?? 0) > 0 ||
      ((faults.throttleRate ?? 0) > 0 && random() < (faults.throttleRate ?? 0));
    if (!hit) return undefined;
    if ((faults.throttleNext ?? 0) > 0) faults.throttleNext = (faults.throttleNext ?? 1) - 1;
    const retryAfter = String(faults.retryAfterS ?? 1);
    const answer = graphError(429, "TooManyRequests", "Please retry again later.", now(), {
      "retry-after": retryAfter,
    });
    const body = answer.body as { error: { innerError: Record<string, unknown> } };
    Object.assign(body.error.innerError, {
      code: "429",
      message: "Please retry after",
      status: "429",
    });
    return answer;
  }

  function authenticate(req: IncomingMessage): Caller | Answer {
    const bearer = req.headers.authorization?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    if (!bearer)
      return graphError(401, "InvalidAuthenticationToken", "Access token is empty.", now());
    const grant = identity.accessGrant(bearer);
    if (grant === undefined)
      return graphError(
        401,
        "InvalidAuthenticationToken",
        "IDX14100: JWT is not well formed.",
        now(),
      );
    if (grant === "expired")
      return graphError(
        401,
        "InvalidAuthenticationToken",
        "Lifetime validation failed, the token is expired.",
        now(),
      );
    if (!grant.scopes.some((s) => GRAPH_READ_SCOPES.includes(s))) {
      return graphError(
        403,
        "ErrorAccessDenied",
        "Access is denied. Check credentials and try again.",
        now(),
      );
    }
    return { userId: grant.userId, clientId: grant.clientId };
  }

  async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown> | Answer> {
    const text = await readBody(req);
    try {
      const doc: unknown = text === undefined || text.trim() === "" ? {} : JSON.parse(text);
      if (doc && typeof doc === "object" && !Array.isArray(doc))
        return doc as Record<string, unknown>;
    } catch {
      // answered below
    }
    return graphError(400, "BadRequest", "Unable to read JSON request payload.", now());
  }

  async function graph(
    req: IncomingMessage,
    path: string,
    query: URLSearchParams,
  ): Promise<Answer> {
    const caller = authenticate(req);
    if ("status" in caller) return caller;
    const limited = throttled();
    if (limited) return limited;
    const method = req.method ?? "GET";
    const prefer = [req.headers.prefer ?? []].flat().join(", ");
    const applied = /outlook\.timezone\s*=\s*"?UTC"?/i.test(prefer)
      ? { "preference-applied": 'outlook.timezone="UTC"' }
      : undefined;
    const withPreference = (a: Answer): Answer =>
      applied ? { ...a, headers: { ...a.headers, ...applied } } : a;
    if (method === "GET" && path === "/v1.0/me/calendarView") {
      return withPreference(events.calendarView(caller.userId, query, now()));
    }
    if (method === "GET" && path === "/v1.0/me/calendarView/delta") {
      const expire = query.has("$deltatoken") && (faults.expireDeltaNext ?? 0) > 0;
      if (expire) faults.expireDeltaNext = (faults.expireDeltaNext ?? 1) - 1;
      return withPreference(events.delta(caller.userId, query, prefer, now(), expire));
    }
    const sub = path.match(/^\/v1\.0\/subscriptions(?:\/([^/]+))?(\/reauthorize)?$/);
    if (sub) {
      const id = sub[1] === undefined ? undefined : decodeURIComponent(sub[1]);
      if (method === "POST" && id === undefined) {
        const doc = await jsonBody(req);
        return "status" in doc ? (doc as Answer) : subscriptions.create(caller, doc, now());
      }
      if (method === "GET" && sub[2] === undefined) return subscriptions.get(caller, id, now());
      if (id !== undefined && method === "POST" && sub[2])
        return subscriptions.reauthorize(caller, id, now());
      if (id !== undefined && method === "PATCH") {
        const doc = await jsonBody(req);
        return "status" in doc ? (doc as Answer) : subscriptions.patch(caller, id, doc, now());
      }
      if (id !== undefined && method === "DELETE") return subscriptions.delete(caller, id, now());
    }
    return graphError(400, "BadRequest", `Resource not found for the segment '${path}'.`, now());
  }

  const api = {
    createEvent(userId: string, input: EventInput): string {
      const change = model.createEvent(userId, input, now());
      notify(userId, change);
      return change.eventId;
    },
    updateEvent(userId: string, eventId: string, input: EventInput): void {
      notify(userId, model.updateEvent(userId, eventId, input, now()));
    },
    deleteEvent(userId: string, eventId: string): void {
      notify(userId, model.deleteEvent(userId, eventId));
    },
    removeSubscription(id: string): boolean {
      const s = model.subscriptions.get(id);
      if (!s) return false;
      model.subscriptions.delete(id);
      notifier.lifecycle(s, "subscriptionRemoved");
      return true;
    },
    requireReauthorization(id: string): boolean {
      const s = model.subscriptions.get(id);
      if (!s) return false;
      s.needsReauthorization = true;
      notifier.lifecycle(s, "reauthorizationRequired");
      return true;
    },
    sendMissed(id: string): boolean {
      const s = model.subscriptions.get(id);
      return s ? notifier.lifecycle(s, "missed") : false;
    },
    silence(id: string): boolean {
      const s = model.subscriptions.get(id);
      if (s) s.silenced = true;
      return s !== undefined;
    },
  };
  const lifecycleActions: Record<string, (id: string) => boolean> = {
    remove: api.removeSubscription,
    reauthorize: api.requireReauthorization,
    missed: api.sendMissed,
    silence: api.silence,
  };

  async function control(req: IncomingMessage, path: string): Promise<Answer> {
    const method = req.method ?? "GET";
    const ok = (body: Record<string, unknown> = {}): Answer => ({
      status: 200,
      body: { ok: true, ...body },
    });
    const fail = (status: number, error: string): Answer => ({
      status,
      body: { ok: false, error },
    });
    if (method === "GET" && path === "/_control/state") {
      return ok({
        users: [...model.users.values()].map((u) => ({ ...u, events: model.userEvents(u.id) })),
        subscriptions: [...model.subscriptions.values()],
        deliveries: notifier.deliveries(),
        faults,
      });
    }
    const doc = method === "DELETE" ? {} : await jsonBody(req);
    if ("status" in doc) return fail(400, "body must be a JSON object");
    try {
      const ev = path.match(/^\/_control\/users\/([^/]+)\/events(?:\/([^/]+))?$/);
      if (ev?.[1]) {
        const userId = decodeURIComponent(ev[1]);
        const eventId = ev[2] === undefined ? undefined : decodeURIComponent(ev[2]);
        if (method === "POST" && eventId === undefined)
          return ok({ id: api.createEvent(userId, doc as EventInput) });
        if (method === "PATCH" && eventId) {
          api.updateEvent(userId, eventId, doc as EventInput);
          return ok();
        }
        if (method === "DELETE" && eventId) {
          api.deleteEvent(userId, eventId);
          return ok();
        }
      }
      const revoke = path.match(/^\/_control\/users\/([^/]+)\/revoke$/);
      if (revoke?.[1] && method === "POST")
        return ok({ revoked: identity.revokeRefreshTokens(decodeURIComponent(revoke[1])) });
      const life = path.match(
        /^\/_control\/subscriptions\/([^/]+)\/(remove|reauthorize|missed|silence)$/,
      );
      if (life?.[1] && life[2] && method === "POST") {
        const done = lifecycleActions[life[2]]?.(decodeURIComponent(life[1])) ?? false;
        return done ? ok() : fail(404, "no such subscription");
      }
      if (path === "/_control/faults" && method === "POST") {
        faults = { ...(doc as MsFaults) };
        return ok({ faults });
      }
      if (path === "/_control/sweep" && method === "POST") return ok({ expired: sweep() });
    } catch (err: unknown) {
      if (err instanceof EventInputError)
        return { status: 400, body: { ok: false, error: err.message, pointer: err.pointer } };
      throw err;
    }
    return fail(404, "not_found");
  }

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://emulator.invalid");
    const path = url.pathname;
    sweep();
    const identityPath = path.match(/^\/([^/]+)\/oauth2\/v2\.0\/(authorize|token)$/);
    let answer: Answer;
    if (identityPath?.[1] && identityPath[2] === "authorize") {
      const params =
        req.method === "POST" ? new URLSearchParams((await readBody(req)) ?? "") : url.searchParams;
      answer = identity.authorize(params, req.method ?? "GET", identityPath[1]);
    } else if (identityPath && req.method === "POST") {
      answer = identity.token(
        new URLSearchParams((await readBody(req)) ?? ""),
        req.headers.authorization,
      );
    } else if (path.startsWith("/v1.0/")) {
      answer = await graph(req, path, url.searchParams);
      callLog.push({ at: now(), method: req.method ?? "GET", path, status: answer.status });
    } else if (path.startsWith("/_control/")) {
      answer = await control(req, path);
    } else {
      answer = { status: 404, body: { error: { code: "NotFound", message: path } } };
    }
    send(res, answer);
  }

  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    route(req, res).catch((err: unknown) => {
      send(
        res,
        graphError(
          500,
          "InternalServerError",
          err instanceof Error ? err.message : String(err),
          now(),
        ),
      );
    });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;
  const sweepEvery = opts.expirySweepMs ?? 1000;
  const sweeper = sweepEvery > 0 ? setInterval(sweep, sweepEvery) : undefined;
  sweeper?.unref();

  return {
    url: baseUrl,
    authUrl: `${baseUrl}/common/oauth2/v2.0/authorize`,
    tokenUrl: `${baseUrl}/common/oauth2/v2.0/token`,
    graphBaseUrl: `${baseUrl}/v1.0`,
    port,
    async close() {
      if (sweeper) clearInterval(sweeper);
      notifier.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    ...api,
    setFaults(f: MsFaults) {
      faults = { ...f };
    },
    subscriptions: () => [...model.subscriptions.values()].map((s) => ({ ...s })),
    revokeRefreshTokens: (userId) => identity.revokeRefreshTokens(userId),
    issueTokens: (clientId, userId, scopes) => identity.issueTokens(clientId, userId, scopes),
    sweepExpired: sweep,
    deliveries: () => notifier.deliveries(),
    flushNotifications: () => notifier.flush(),
    calls: () => callLog.map((c) => ({ ...c })),
  };
}

export type { DeliveryRecord, LifecycleEvent };
