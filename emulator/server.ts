import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { systemClock } from "#lib/app/compose/system-clock";
import type { Clock } from "#lib/core/clock";
import { type Log, silentLog } from "#lib/core/ports";
import { HOST_NOT_LOOPBACK, isLoopbackHost } from "#lib/http/loopback-host";
import { MANIFEST_METHODS } from "./app-manifests";
import { type CallRecord, ParamRedactor, redactToken } from "./call-log";
import { dndMethods } from "./dnd";
import { type DeliveryRecord, EventDispatcher } from "./events";
import { type FaultSpec, seededRandom, toFaultSpec } from "./faults";
import { homeMethods } from "./home";
import {
  CLICK_PATH,
  type ControlAnswer,
  HOME_OPENED_PATH,
  type InteractionRecord,
  Interactivity,
} from "./interactivity";
import { fail, METHODS, type MethodResult } from "./methods";
import { EmulatorModel, type PendingEmail, type StoredProfile } from "./model";
import { OAuthEmulator } from "./oauth";
import { DEFAULT_LIMITS, RateLimiter, type RateLimits } from "./rate-limit";
import { parseRequestArgs } from "./request";
import { ResponseUrls } from "./response-urls";
import type { EmulatorSnapshot } from "./snapshot";
import { applySnapshot, takeSnapshot } from "./snapshot-state";
import { DEFAULT_TIER_LIMITS, TierLimiter, type TierLimits } from "./tiers";
import type { Workspace } from "./workspace";

export { type CallRecord, REDACTED_SECRET, redactToken } from "./call-log";
export { signEvent } from "./events";
export { type FaultSpec, parseFaults } from "./faults";
export { type EmulatorSnapshot, parseSnapshot, type SnapshotRead } from "./snapshot";
export { loadWorkspace, parseWorkspace, type Workspace, WorkspaceError } from "./workspace";

export interface EmulatorOptions {
  workspace: Workspace;
  port?: number;
  host?: "127.0.0.1";
  clock?: Clock;
  faults?: FaultSpec | string;
  seed?: number;
  /** Real-time interval of the expiry sweep; 0 disables it (tests call `sweepExpired()`). */
  expirySweepMs?: number;
  log?: Log;
  limits?: Partial<RateLimits>;
  /** Delays before event retries 1..3; the platform's are 0 s, 1 min, 5 min. */
  eventRetryDelaysMs?: number[];
  eventAttemptTimeoutMs?: number;
  /** The {oauth_callback_url} offered to MCP servers in dynamic client registration. */
  oauthCallbackUrl?: string;
  /** How long a `timeout` fault holds a request before dropping the connection. */
  faultTimeoutMs?: number;
  /** How long a request body may take to arrive before the call answers `request_timeout`. */
  bodyTimeoutMs?: number;
  /** State saved by `snapshot()` of an earlier run (validated by `parseSnapshot`) to start from. */
  snapshot?: EmulatorSnapshot;
  /** The rate tiers of the methods beyond the spec (`views.publish`, `chat.postMessage`, `dnd.*`). */
  tierLimits?: Partial<TierLimits>;
  /** How long an app has to answer a click's `block_actions` (the platform: 3 s). */
  interactionTimeoutMs?: number;
}

export interface EmulatorState {
  team: Workspace["team"];
  profiles: Record<string, StoredProfile>;
  pendingEmails: PendingEmail[];
  apps: { id: string; manifest: Record<string, unknown> }[];
  deliveries: DeliveryRecord[];
  /** Person → the last Home view an app published for them, as sent (extension). */
  home_views: Record<string, Record<string, unknown>>;
  /** Every message apps posted into their DMs with people, oldest first (extension). */
  messages: {
    app: string;
    channel: string;
    user: string;
    text: string;
    blocks?: Record<string, unknown>[];
    ts: string;
  }[];
  /** Person → their snooze, while one is on (extension). */
  dnd: Record<string, { snooze_endtime: number }>;
  /** Each click delivered to an app, and how it went (extension). */
  interactions: InteractionRecord[];
}

export interface RunningEmulator {
  url: string;
  apiBase: string;
  port: number;
  close(): Promise<void>;
  sweepExpired(): Promise<number>;
  setFaults(f: FaultSpec | string): void;
  state(): EmulatorState;
  /** Each status expiration still set (epoch seconds), without a snapshot of the state. */
  statusExpirations(): number[];
  calls(): CallRecord[];
  /** Event deliveries (first attempts and retries) not yet settled. */
  pendingDeliveries(): number;
  /** Resolves when every event delivery so far, retries included, has settled. */
  flushEvents(): Promise<void>;
  /** Confirms a pending email change, as the user following the link would. */
  confirmEmail(user: string): boolean;
  /** The mutable workspace state (not deliveries in flight), for `snapshot` of a later run. */
  snapshot(): EmulatorSnapshot;
  /** `POST /_emulator/home_opened`: a person opens an app's Home tab. */
  homeOpened(args: { user: string; app?: string; tab?: "home" | "messages" }): ControlAnswer;
  /** `POST /_emulator/click`: a person clicks a button of their Home view or latest DM. */
  click(args: {
    user: string;
    action_id: string;
    value?: string;
    block_id?: string;
    app?: string;
    surface?: "home" | "message";
    ts?: string;
  }): Promise<ControlAnswer>;
}

const MAX_BODY = 1_000_000;

/** The body as read: whole, too large, or missing/truncated (spec 7.1 `request_timeout`). */
type BodyRead =
  | { kind: "ok"; body: Buffer }
  | { kind: "too_large" }
  | { kind: "truncated"; reason: "timeout" | "aborted" };

/**
 * Reads the whole request body. A body that does not arrive within `timeoutMs` (a Content-Length
 * larger than what the client sends) or that the client cuts off is `truncated`.
 */
function readBody(req: IncomingMessage, timeoutMs: number): Promise<BodyRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (read: BodyRead) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(read);
    };
    const timer = setTimeout(() => settle({ kind: "truncated", reason: "timeout" }), timeoutMs);
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on("end", () =>
      settle(size > MAX_BODY ? { kind: "too_large" } : { kind: "ok", body: Buffer.concat(chunks) }),
    );
    req.on("error", () => settle({ kind: "truncated", reason: "aborted" }));
    req.on("close", () => settle({ kind: "truncated", reason: "aborted" }));
  });
}

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(text);
}

/** Starts the emulator on 127.0.0.1 (port 0 picks a free one). */
export async function startEmulator(opts: EmulatorOptions): Promise<RunningEmulator> {
  const clock: Clock = opts.clock ?? systemClock;
  const log = opts.log ?? silentLog;
  const model = new EmulatorModel(opts.workspace);
  const limiter = new RateLimiter({ ...DEFAULT_LIMITS, ...opts.limits });
  let random = seededRandom(opts.seed ?? 1);
  let faults = toFaultSpec(opts.faults);
  const callLog: CallRecord[] = [];
  const redactor = new ParamRedactor(model);
  const sockets = new Set<Socket>();
  const held = new Set<NodeJS.Timeout>();
  const events = new EventDispatcher({
    clock,
    log,
    random: () => random(),
    retryDelaysMs: opts.eventRetryDelaysMs ?? [0, 60_000, 300_000],
    attemptTimeoutMs: opts.eventAttemptTimeoutMs ?? 3000,
    faults: () => faults,
  });
  // The OAuth extension: its pages, its methods, and the events revocation sends.
  const oauth = new OAuthEmulator({
    model,
    clock,
    events,
    bodyTimeoutMs: opts.bodyTimeoutMs ?? 5000,
  });
  if (opts.snapshot) applySnapshot(model, oauth.grants, opts.snapshot);
  // The App Home, DM and DND extensions: their methods, clicks and response URLs.
  const tiers = new TierLimiter({ ...DEFAULT_TIER_LIMITS, ...opts.tierLimits });
  const extensionMethods = { ...homeMethods(tiers), ...dndMethods(tiers) };
  let baseUrl = "";
  const responseUrls = new ResponseUrls({
    model,
    clock,
    baseUrl: () => baseUrl,
    bodyTimeoutMs: opts.bodyTimeoutMs ?? 5000,
  });
  const interactivity = new Interactivity({
    model,
    clock,
    events,
    responseUrls,
    ...(opts.interactionTimeoutMs === undefined
      ? {}
      : { attemptTimeoutMs: opts.interactionTimeoutMs }),
  });

  function emitUserChange(userId: string): void {
    const user = model.users.get(userId);
    const profile = model.profiles.get(userId);
    if (!user || !profile) return;
    const eventTime = Math.floor(clock.now() / 1000);
    for (const { app, manifest } of model.apps.values()) {
      const subs = (
        manifest.settings as { event_subscriptions?: Record<string, unknown> } | undefined
      )?.event_subscriptions;
      const requestUrl = subs?.request_url;
      const listed = (k: string) =>
        ((v: unknown) => Array.isArray(v) && v.includes("user_change"))(subs?.[k]);
      if (typeof requestUrl !== "string" || !(listed("user_events") || listed("bot_events")))
        continue;
      const role = user.role;
      const eventId = model.nextEventId();
      events.dispatch(
        { appId: app.id, requestUrl, signingSecret: app.signing_secret },
        {
          token: app.verification_token ?? `vt-${app.id}`,
          team_id: model.team.id,
          api_app_id: app.id,
          type: "event_callback",
          event_id: eventId,
          event_time: eventTime,
          event: {
            type: "user_change",
            user: {
              id: user.id,
              team_id: model.team.id,
              name: user.name,
              deleted: false,
              real_name: profile.real_name,
              tz: user.tz ?? "UTC",
              is_bot: user.is_bot === true,
              is_admin: role === "admin" || role === "owner" || role === "primary_owner",
              is_owner: role === "owner" || role === "primary_owner",
              is_primary_owner: role === "primary_owner",
              profile: structuredClone(profile),
            },
            cache_ts: eventTime,
            event_ts: `${eventTime}.000000`,
          },
        },
      );
    }
  }

  /** Clears every status whose expiration has passed, text and emoji together. */
  function sweep(): number {
    const nowS = Math.floor(clock.now() / 1000);
    model.dnd.sweep(nowS);
    let cleared = 0;
    for (const [id, p] of model.profiles) {
      if (p.status_expiration <= 0 || p.status_expiration > nowS) continue;
      const had = p.status_text !== "" || p.status_emoji !== "";
      p.status_text = "";
      p.status_emoji = "";
      p.status_expiration = 0;
      if (had) {
        cleared += 1;
        emitUserChange(id);
      }
    }
    return cleared;
  }

  function confirmEmail(user: string): boolean {
    const i = model.pendingEmails.findIndex((p) => p.user === user);
    const pending = model.pendingEmails[i];
    const profile = model.profiles.get(user);
    if (!pending || !profile) return false;
    model.pendingEmails.splice(i, 1);
    profile.email = pending.newEmail;
    emitUserChange(user);
    return true;
  }

  function record(
    method: string,
    token: string | undefined,
    result: MethodResult,
    args?: Record<string, unknown>,
  ): void {
    const outcome = result.body.ok === true ? "ok" : String(result.body.error);
    const entry: CallRecord = {
      seq: callLog.length + 1,
      at: clock.now(),
      method,
      token: redactToken(token),
      app: (token === undefined ? undefined : model.tokens.get(token)?.app) ?? null,
      caller: result.caller ?? null,
      user: result.target ?? null,
      outcome,
      httpStatus: result.status,
      params: args === undefined ? null : redactor.params(args),
    };
    callLog.push(entry);
    log.info("call", { ...entry });
  }

  async function handleApi(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
  ): Promise<void> {
    const handler =
      METHODS[method] ??
      MANIFEST_METHODS[method] ??
      oauth.methods[method] ??
      extensionMethods[method];
    const auth = req.headers.authorization;
    const bearer = auth?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
    if (!handler) {
      const result = { ...fail("unknown_method"), status: 404 };
      record(method, bearer, result);
      return send(res, result.status, { ...result.body, req_method: method });
    }
    if (req.method !== "POST") {
      const result = { ...fail("invalid_post_type"), status: 405 };
      record(method, bearer, result);
      return send(res, result.status, result.body, { allow: "POST" });
    }
    const read = await readBody(req, opts.bodyTimeoutMs ?? 5000);
    if (read.kind === "truncated") {
      const result = fail("request_timeout");
      record(method, bearer, read.reason === "aborted" ? { ...result, status: 0 } : result);
      // A client that hung up cannot be answered; one that stalls gets the answer, then the
      // connection closes, since the rest of its body would be read as a new request.
      if (read.reason === "aborted" || res.destroyed) return;
      return send(res, result.status, result.body, { connection: "close" });
    }
    const body = read.kind === "ok" ? read.body : undefined;
    // Parsed before the faults only so that the call log shows what a faulted call carried.
    const parsed =
      body === undefined ? undefined : await parseRequestArgs(req.headers["content-type"], body);
    const args = parsed?.ok === true ? parsed.args : undefined;
    const tokenArg = typeof args?.token === "string" ? args.token : undefined;
    for (const [code, rate] of Object.entries(faults.errors)) {
      if (rate > 0 && random() < rate) {
        const result: MethodResult = fail(code);
        if (code === "ratelimited") result.headers = { "retry-after": "1" };
        record(method, bearer ?? tokenArg, result, args);
        return send(res, result.status, result.body, result.headers);
      }
    }
    if (faults.timeout > 0 && random() < faults.timeout) {
      const result = { status: 0, body: { ok: false, error: "fault_timeout" } };
      record(method, bearer ?? tokenArg, result, args);
      // Never answer; drop the connection later so the caller sees a timeout or a reset.
      const t = setTimeout(() => {
        held.delete(t);
        req.socket.destroy();
      }, opts.faultTimeoutMs ?? 30_000);
      held.add(t);
      return;
    }
    const [slowest, fastest] = [faults.latencyMs?.[1] ?? 0, faults.latencyMs?.[0] ?? 0];
    if (slowest > 0) {
      // A slow service: the call waits in wall-clock time, then takes effect and answers.
      const wait =
        slowest === fastest ? slowest : Math.round(fastest + random() * (slowest - fastest));
      await new Promise<void>((resolve) => {
        const t = setTimeout(() => {
          held.delete(t);
          resolve();
        }, wait);
        held.add(t);
      });
    }
    let result: MethodResult;
    if (parsed === undefined) result = fail("invalid_form_data");
    else if (!parsed.ok) result = fail(parsed.code);
    else {
      sweep();
      const actingHeader = req.headers["x-svc-user"];
      result = await handler({
        model,
        limiter,
        now: clock.now(),
        args: parsed.args,
        bearer,
        actingUserHeader: Array.isArray(actingHeader) ? actingHeader[0] : actingHeader,
        authorization: auth,
        remoteAddress: req.socket.remoteAddress ?? "",
        oauthCallbackUrl: opts.oauthCallbackUrl ?? "https://svc.example/oauth/callback",
        origin: url,
      });
      for (const user of result.changed ?? []) emitUserChange(user);
    }
    record(method, bearer ?? tokenArg, result, args);
    send(res, result.status, result.body, result.headers);
  }

  function state(): EmulatorState {
    return {
      team: model.team,
      profiles: Object.fromEntries([...model.profiles].map(([id, p]) => [id, structuredClone(p)])),
      pendingEmails: model.pendingEmails.map((p) => ({ ...p })),
      apps: [...model.apps.values()].map((a) => ({
        id: a.app.id,
        manifest: structuredClone(a.manifest),
      })),
      deliveries: events.deliveries(),
      home_views: Object.fromEntries(
        model.home.allViews().map((h) => [h.user, structuredClone(h.sent)]),
      ),
      messages: model.home.allMessages().map((m) => ({
        app: m.app,
        channel: m.channel,
        user: m.user,
        text: m.text,
        ...(m.blocks === undefined ? {} : { blocks: structuredClone(m.blocks) }),
        ts: m.ts,
      })),
      dnd: model.dnd.active(Math.floor(clock.now() / 1000)),
      interactions: interactivity.records(),
    };
  }

  function setFaults(f: FaultSpec | string, seed?: number): void {
    faults = toFaultSpec(f);
    if (seed !== undefined) random = seededRandom(seed);
  }

  async function handleControl(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
  ): Promise<void> {
    if (req.method === "GET" && path === "/_emulator/state") return send(res, 200, state());
    if (req.method === "GET" && path === "/_emulator/calls")
      return send(res, 200, { calls: callLog });
    if (req.method === "POST") {
      const read = await readBody(req, opts.bodyTimeoutMs ?? 5000);
      if (read.kind !== "ok") {
        if (res.destroyed) return;
        return send(res, 400, { ok: false, error: "body missing, truncated or too large" });
      }
      const body = read.body.toString("utf8");
      let doc: Record<string, unknown> = {};
      try {
        const parsed: unknown = body.trim() === "" ? {} : JSON.parse(body);
        if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
          doc = parsed as Record<string, unknown>;
        else return send(res, 400, { ok: false, error: "body must be a JSON object" });
      } catch {
        return send(res, 400, { ok: false, error: "body is not JSON" });
      }
      if (path === "/_emulator/faults") {
        const spec = typeof doc.spec === "string" ? doc.spec : "";
        const seed = typeof doc.seed === "number" ? doc.seed : undefined;
        try {
          setFaults(spec, seed);
        } catch (err: unknown) {
          return send(res, 400, {
            ok: false,
            error: err instanceof Error ? err.message : "bad fault spec",
          });
        }
        return send(res, 200, { ok: true, faults });
      }
      if (path === "/_emulator/confirm-email") {
        if (typeof doc.user !== "string")
          return send(res, 400, { ok: false, error: "user is required" });
        const confirmed = confirmEmail(doc.user);
        return confirmed
          ? send(res, 200, { ok: true, profile: model.profiles.get(doc.user) })
          : send(res, 404, { ok: false, error: `no pending email change for ${doc.user}` });
      }
      if (path === "/_emulator/sweep") return send(res, 200, { ok: true, cleared: sweep() });
      if (path === HOME_OPENED_PATH) {
        const answer = interactivity.homeOpened(doc);
        return send(res, answer.status, answer.body);
      }
      if (path === CLICK_PATH) {
        const answer = await interactivity.click(doc);
        return send(res, answer.status, answer.body);
      }
    }
    send(res, 404, { ok: false, error: "not_found" });
  }

  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    let work: Promise<void>;
    if (path.startsWith("/_emulator/") && !isLoopbackHost(req.headers.host)) {
      // Its state, call log, faults and uninstall are for this machine only (DNS rebinding).
      const nosniff = { "x-content-type-options": "nosniff" };
      work = Promise.resolve(send(res, 403, { ok: false, ...HOST_NOT_LOOPBACK }, nosniff));
    } else if (path.startsWith("/api/")) {
      // `/api/users/profile.set` is the raw example's spelling of `users.profile.set`.
      const method = path.slice("/api/".length).replaceAll("/", ".");
      work = handleApi(req, res, method);
    } else if (oauth.handlesPath(path)) work = oauth.handleHttp(req, res, path);
    else if (responseUrls.handlesPath(path)) work = responseUrls.handle(req, res, path);
    else if (path.startsWith("/_emulator/")) work = handleControl(req, res, path);
    else work = Promise.resolve(send(res, 404, { ok: false, error: "not_found" }));
    work.catch((err: unknown) => {
      log.error("emulator bug", { error: err instanceof Error ? err.message : String(err) });
      if (!res.headersSent) send(res, 500, { ok: false, error: "fatal_error" });
    });
  });
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  baseUrl = url;

  const sweepEvery = opts.expirySweepMs ?? 1000;
  const sweeper = sweepEvery > 0 ? setInterval(sweep, sweepEvery) : undefined;
  sweeper?.unref();

  return {
    url,
    apiBase: `${url}/api`,
    port,
    async close() {
      if (sweeper) clearInterval(sweeper);
      for (const t of held) clearTimeout(t);
      events.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    sweepExpired: async () => sweep(),
    setFaults: (f) => setFaults(f),
    state,
    statusExpirations: () =>
      [...model.profiles.values()].flatMap((p) =>
        p.status_expiration > 0 ? [p.status_expiration] : [],
      ),
    calls: () => callLog.map((c) => ({ ...c })),
    pendingDeliveries: () => events.pending(),
    flushEvents: () => events.flush(),
    confirmEmail,
    snapshot: () => takeSnapshot(model, oauth.grants),
    homeOpened: (args) => interactivity.homeOpened(args),
    click: (args) => interactivity.click(args),
  };
}
