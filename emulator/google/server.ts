import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { systemClock } from "#lib/app/compose/system-clock";
import { type Clock, ManualClock } from "#lib/core/clock";
import { type Log, silentLog } from "#lib/core/ports";
import { handleApi, isApiPath } from "./api-routes";
import { CalendarModel, type GoogleUser } from "./calendar-model";
import { ChannelRegistry } from "./channels";
import { GoogleControl, handleControl } from "./control";
import { EventLister } from "./events-list";
import { ApiFaults } from "./faults";
import { type GoogleRequest, readBody, sendJson } from "./http";
import { GoogleOAuth, type OAuthClient } from "./oauth";
import { AUTH_PATH } from "./oauth-page";
import { authorizeGet, authorizePost, revokePost, tokenPost } from "./oauth-routes";
import { DEFAULT_PUSH, type PushOptions, PushSender } from "./push";

export { type FaultRequest, GoogleControl } from "./control";
export type { OAuthClient } from "./oauth";

/**
 * The Google Calendar + Google OAuth emulator: one HTTP server (node:http, 127.0.0.1, port 0
 * picks a free one) serving the sign-in pages, the token endpoint, the Calendar API's
 * events.list / events.watch / channels.stop, push messages to watch channels, and the control
 * surface under `/_control/`. The product reaches it through its configured base URLs.
 */

export interface GoogleEmulatorOptions {
  port?: number;
  clock?: Clock;
  log?: Log;
  clients?: OAuthClient[];
  users?: { id?: string; email: string; name?: string; timeZone?: string }[];
  /** Approve the consent step at once as this account (id or address), for automation. */
  autoApprove?: string;
  push?: Partial<PushOptions>;
  /** The longest lifetime granted to a channel, in seconds (30 days by default). */
  grantedLifetimeS?: number;
}

export interface RunningGoogleEmulator {
  url: string;
  port: number;
  /** `providers.google` addresses: authorize, token and API base. */
  authUrl: string;
  tokenUrl: string;
  revokeUrl: string;
  apiBaseUrl: string;
  control: GoogleControl;
  /** Replaces the time source (a `Clock`-like `now()`); channel and token expiry follow it. */
  setClock(clock: Clock): void;
  close(): Promise<void>;
}

export async function startGoogleEmulator(
  opts: GoogleEmulatorOptions = {},
): Promise<RunningGoogleEmulator> {
  const log = opts.log ?? silentLog;
  const baseClock = opts.clock ?? systemClock;
  let clock: Clock = baseClock;
  const clockNow = () => clock;
  const model = new CalendarModel(clockNow);
  const oauth = new GoogleOAuth(clockNow);
  const sender = new PushSender({ ...DEFAULT_PUSH, ...opts.push }, log, () => clock.now());
  const channels = new ChannelRegistry(clockNow, sender);
  channels.setGrantedLifetime(opts.grantedLifetimeS);
  model.onChange((cal, kind) =>
    kind === "changed" ? channels.changed(cal) : channels.removed(cal),
  );
  const faults = new ApiFaults();
  const lister = new EventLister();
  let autoApprove: string | null = opts.autoApprove ?? null;
  const approver = (): GoogleUser | undefined =>
    autoApprove === null
      ? undefined
      : (model.users.get(autoApprove) ?? model.userByEmail(autoApprove));
  const control = new GoogleControl({
    model,
    oauth,
    channels,
    faults,
    sender,
    setAutoApprove: (u) => {
      autoApprove = u;
    },
  });
  for (const c of opts.clients ?? []) control.addClient(c);
  for (const u of opts.users ?? []) control.addUser(u);

  let baseUrl = "";
  const apiDeps = {
    model,
    oauth,
    channels,
    lister,
    faults,
    now: () => clock.now(),
    baseUrl: () => baseUrl,
  };
  const oauthDeps = { oauth, model, autoApprove: approver };
  const setNow = (now: number | null) => {
    clock = now === null ? baseClock : new ManualClock(now);
  };

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const body = await readBody(req);
    if (body === undefined) return sendJson(res, 413, { error: "request too large" });
    const r: GoogleRequest = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
    };
    if (isApiPath(r.path)) return handleApi(r, res, apiDeps);
    if (r.path.startsWith("/_control/")) return handleControl(r, res, control, setNow);
    const key = `${r.method} ${r.path}`;
    if (key === `GET ${AUTH_PATH}`) return authorizeGet(r, res, oauthDeps);
    if (key === `POST ${AUTH_PATH}`) return authorizePost(r, res, oauthDeps);
    if (key === "POST /token") return tokenPost(r, res, oauthDeps);
    if (key === "POST /revoke") return revokePost(r, res, oauthDeps);
    sendJson(res, 404, { error: { code: 404, message: "Not Found" } });
  }

  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    route(req, res).catch((e: unknown) => {
      log.error("google emulator failure", { error: String(e) });
      if (!res.headersSent) sendJson(res, 500, { error: { code: 500, message: "Internal error" } });
      else res.end();
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  baseUrl = `http://127.0.0.1:${port}`;
  return {
    url: baseUrl,
    port,
    authUrl: `${baseUrl}${AUTH_PATH}`,
    tokenUrl: `${baseUrl}/token`,
    revokeUrl: `${baseUrl}/revoke`,
    apiBaseUrl: baseUrl,
    control,
    setClock: (c) => {
      clock = c;
    },
    close: async () => {
      sender.close();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
