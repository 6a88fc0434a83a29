import type { ServerResponse } from "node:http";
import type { CalendarModel, CalendarState, GoogleUser } from "./calendar-model";
import type { ChannelRegistry } from "./channels";
import {
  GoogleApiError,
  insufficientPermissions,
  invalidCredentials,
  loginRequired,
  notFound,
} from "./errors";
import type { EventLister } from "./events-list";
import type { ApiFaults } from "./faults";
import { type GoogleRequest, header, jsonObject, sendJson } from "./http";
import { EVENT_READ_SCOPES, type GoogleOAuth } from "./oauth";

/**
 * The Calendar API v3 routes: events.list, events.watch and channels.stop. Each call is
 * authenticated by its bearer token (401 with Google's body when missing, unknown or
 * expired), then meets any switched-on fault, then runs.
 */

export interface ApiDeps {
  model: CalendarModel;
  oauth: GoogleOAuth;
  channels: ChannelRegistry;
  lister: EventLister;
  faults: ApiFaults;
  now(): number;
  /** The emulator's address, for `resourceUri`. */
  baseUrl(): string;
}

const EVENTS = /^\/calendar\/v3\/calendars\/([^/]+)\/events$/;
const WATCH = /^\/calendar\/v3\/calendars\/([^/]+)\/events\/watch$/;
const STOP = "/calendar/v3/channels/stop";

export const isApiPath = (path: string): boolean => path.startsWith("/calendar/v3/");

function authenticate(r: GoogleRequest, deps: ApiDeps): GoogleUser {
  const auth = header(r.headers, "authorization");
  if (!auth) throw loginRequired();
  const m = /^Bearer\s+(\S+)$/i.exec(auth.trim());
  const rec = m?.[1] ? deps.oauth.accessToken(m[1]) : undefined;
  if (!rec) throw invalidCredentials();
  if (!rec.scopes.some((s) => EVENT_READ_SCOPES.includes(s))) throw insufficientPermissions();
  const user = deps.model.users.get(rec.userId);
  if (!user) throw invalidCredentials();
  return user;
}

function calendarOf(deps: ApiDeps, user: GoogleUser, encodedId: string): CalendarState {
  const cal = deps.model.calendarFor(user, decodeURIComponent(encodedId));
  if (!cal) throw notFound();
  return cal;
}

export function handleApi(r: GoogleRequest, res: ServerResponse, deps: ApiDeps) {
  try {
    const list = EVENTS.exec(r.path);
    const watch = WATCH.exec(r.path);
    const known = list || watch || r.path === STOP;
    if (!known) throw notFound();
    const wanted = list ? "GET" : "POST";
    if (r.method !== wanted) {
      throw new GoogleApiError(405, {
        domain: "global",
        reason: "httpMethodNotAllowed",
        message: `HTTP method ${r.method} is not supported by this URL`,
      });
    }
    const user = authenticate(r, deps);
    const fault = deps.faults.take();
    if (fault) throw fault;
    if (list?.[1]) {
      const cal = calendarOf(deps, user, list[1]);
      return sendJson(res, 200, deps.lister.list(cal, r.query, deps.now()));
    }
    if (watch?.[1]) {
      const cal = calendarOf(deps, user, watch[1]);
      const resourceUri = `${deps.baseUrl()}/calendar/v3/calendars/${watch[1]}/events?alt=json`;
      return sendJson(res, 200, deps.channels.watch(user, cal, jsonObject(r.body), resourceUri));
    }
    deps.channels.stop(user, jsonObject(r.body));
    res.writeHead(204);
    res.end();
  } catch (e) {
    if (e instanceof GoogleApiError) return sendJson(res, e.status, e.body, e.headers);
    throw e;
  }
}
