/**
 * The Microsoft emulator: the identity platform's authorize and token endpoints and the Graph
 * endpoints Statuspilot uses (calendarView, its delta, subscriptions), over real HTTP on
 * 127.0.0.1 (port 0 picks a free one). Edits through the control surface or the programmatic API
 * notify subscriptions, as Outlook does. Expiry follows the injected clock. See the README's
 * "Microsoft Graph emulator (extension)".
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { systemClock } from "#lib/app/compose/system-clock";
import { seededRandom } from "../faults";
import { type ControlActions, controlRequest } from "./control";
import { EventsApi } from "./events-api";
import { type Answer, graphError, readBody, send } from "./http";
import { IdentityPlatform } from "./identity";
import { type ChangeEntry, type EventInput, MicrosoftModel } from "./model";
import { type DeliveryRecord, type LifecycleEvent, Notifier, validateEndpoint } from "./notifier";
import {
  DEMO_CLIENTS,
  DEMO_TENANT_ID,
  DEMO_USERS,
  type MicrosoftEmulatorOptions,
  type MsFaults,
  type RunningMicrosoftEmulator,
} from "./options";
import { type Caller, SubscriptionsApi } from "./subscriptions-api";

export type { MsClient } from "./identity";
export type { EventInput, MsUser, StoredSubscription } from "./model";
export {
  DEMO_CLIENTS,
  DEMO_TENANT_ID,
  DEMO_USERS,
  type MicrosoftEmulatorOptions,
  type MsFaults,
  type RunningMicrosoftEmulator,
} from "./options";

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
  let grantedLifetimeS = opts.grantedLifetimeS;
  const setGrantedLifetime = (maxS: number | undefined) => {
    grantedLifetimeS = maxS;
  };
  const subscriptions = new SubscriptionsApi({
    model,
    notifier,
    baseUrl: () => baseUrl,
    grantedLifetimeMs: () => (grantedLifetimeS === undefined ? undefined : grantedLifetimeS * 1000),
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
  const controlActions: ControlActions = {
    state: () => ({
      users: [...model.users.values()].map((u) => ({ ...u, events: model.userEvents(u.id) })),
      subscriptions: [...model.subscriptions.values()],
      deliveries: notifier.deliveries(),
      faults,
      grantedLifetimeS: grantedLifetimeS ?? null,
    }),
    ...api,
    revokeRefreshTokens: (userId) => identity.revokeRefreshTokens(userId),
    subscriptionAction: (action, id) => lifecycleActions[action]?.(id) ?? false,
    setFaults(doc) {
      faults = { ...(doc as MsFaults) };
      return { ...faults };
    },
    setGrantedLifetime,
    sweep,
  };

  async function control(req: IncomingMessage, path: string): Promise<Answer> {
    const method = req.method ?? "GET";
    const doc = method === "GET" || method === "DELETE" ? {} : await jsonBody(req);
    if ("status" in doc)
      return { status: 400, body: { ok: false, error: "body must be a JSON object" } };
    return controlRequest(controlActions, method, path, doc);
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
    setGrantedLifetime,
    subscriptions: () => [...model.subscriptions.values()].map((s) => ({ ...s })),
    revokeRefreshTokens: (userId) => identity.revokeRefreshTokens(userId),
    issueTokens: (clientId, userId, scopes) => identity.issueTokens(clientId, userId, scopes),
    sweepExpired: sweep,
    deliveries: () => notifier.deliveries(),
    flushNotifications: () => notifier.flush(),
    notificationsUnderway: () => notifier.underway(),
    calls: () => callLog.map((c) => ({ ...c })),
  };
}

export type { DeliveryRecord, LifecycleEvent };
