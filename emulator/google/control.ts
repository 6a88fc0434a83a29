import type { ServerResponse } from "node:http";
import {
  type CalendarModel,
  currentVersion,
  type GoogleUser,
  ModelError,
  type StoredEvent,
} from "./calendar-model";
import type { ChannelRegistry, ChannelView } from "./channels";
import {
  ClientIn,
  ClockIn,
  ConsentIn,
  FaultsIn,
  GrantedLifetimeIn,
  readInput,
  UserIn,
} from "./control-input";
import type { ApiFaults, RateLimitFault } from "./faults";
import { type GoogleRequest, jsonObject, sendJson } from "./http";
import type { GoogleOAuth, OAuthClient } from "./oauth";
import type { PushRecord, PushSender } from "./push";
import { eventItem } from "./resources";

/**
 * The control surface: what a test or the local stack does to the emulated Google that a
 * person or Google itself would do (accounts, events, faults, time). The same operations are
 * a programmatic API (`GoogleControl`) and JSON over HTTP under `/_control/`.
 */

export interface FaultRequest {
  rateLimit?: RateLimitFault | null;
  /** Every sync token issued so far for this calendar (all calendars when empty) answers 410. */
  expireSyncTokens?: { calendar?: string };
  /** The channel sends nothing more, while it still looks live. */
  silenceChannel?: { id: string };
  /** The user's grants die: refresh answers `invalid_grant`, access tokens 401. */
  invalidGrant?: { user: string };
  /** Access tokens (of one user, or all) expire now; refresh tokens keep working. */
  expireAccessTokens?: { user?: string };
}

export class GoogleControl {
  constructor(
    private readonly d: {
      model: CalendarModel;
      oauth: GoogleOAuth;
      channels: ChannelRegistry;
      faults: ApiFaults;
      sender: PushSender;
      setAutoApprove(user: string | null): void;
    },
  ) {}

  addClient(c: OAuthClient): void {
    this.d.oauth.addClient(input(ClientIn, c));
  }

  addUser(u: { id?: string; email: string; name?: string; timeZone?: string }): GoogleUser {
    return this.d.model.addUser(input(UserIn, u));
  }

  /** The account approved at once at the consent step (its id or address); null: the page. */
  setAutoApprove(user: string | null): void {
    this.d.setAutoApprove(user);
  }

  /** Deletes an account's calendar (its channels hear `not_exists`). */
  removeCalendar(calendar: string): void {
    this.d.model.removeCalendar(calendar);
  }

  /** Adds an event (the Event resource's writable fields) and returns it as listed. */
  addEvent(calendar: string, event: unknown): Record<string, unknown> {
    return this.view(calendar, this.d.model.createEvent(calendar, event));
  }

  /** Edits an event, or one instance (`<id>_<start>`) of a recurring event. */
  editEvent(calendar: string, eventId: string, patch: unknown): Record<string, unknown> {
    return this.view(calendar, this.d.model.patchEvent(calendar, eventId, patch));
  }

  cancelEvent(calendar: string, eventId: string): Record<string, unknown> {
    return this.view(calendar, this.d.model.cancelEvent(calendar, eventId));
  }

  deleteEvent(calendar: string, eventId: string): Record<string, unknown> {
    return this.view(calendar, this.d.model.deleteEvent(calendar, eventId));
  }

  private view(calendar: string, ev: StoredEvent): Record<string, unknown> {
    return eventItem(this.d.model.calendar(calendar), ev, currentVersion(ev)).resource;
  }

  channels(): ChannelView[] {
    return this.d.channels.list();
  }

  /**
   * New channels are granted at most `maxS` seconds, whatever the watch asks (Google may grant
   * less than asked; its answer's `expiration` says how long); null: back to the default.
   */
  setGrantedLifetime(request: { maxS: number | null }): { grantedLifetimeS: number } {
    const { maxS } = input(GrantedLifetimeIn, request);
    this.d.channels.setGrantedLifetime(maxS ?? undefined);
    return { grantedLifetimeS: this.d.channels.grantedLifetimeS() };
  }

  pushes(): PushRecord[] {
    return [...this.d.sender.records];
  }

  flushPushes(): Promise<void> {
    return this.d.sender.flush();
  }

  /** Pushes on their way (not between a failed attempt and its retry), for "wait until quiet". */
  pushesUnderway(): number {
    return this.d.sender.underway();
  }

  faults(request: FaultRequest): Record<string, unknown> {
    const f = input(FaultsIn, request);
    const out: Record<string, unknown> = {};
    if (f.rateLimit !== undefined) this.d.faults.setRateLimit(f.rateLimit);
    if (f.expireSyncTokens) this.d.model.expireSyncTokens(f.expireSyncTokens.calendar);
    if (f.silenceChannel && !this.d.channels.silence(f.silenceChannel.id)) {
      throw new ModelError(404, `no channel ${f.silenceChannel.id}`, "/silenceChannel/id");
    }
    if (f.invalidGrant) {
      out.invalidatedGrants = this.d.oauth.invalidateGrants(this.userId(f.invalidGrant.user));
    }
    if (f.expireAccessTokens) {
      const u = f.expireAccessTokens.user;
      out.expiredAccessTokens = this.d.oauth.expireAccessTokens(
        u === undefined ? undefined : this.userId(u),
      );
    }
    return { ...out, ...this.d.faults.describe() };
  }

  /** A user by id or address. */
  userId(idOrEmail: string): string {
    const u = this.d.model.users.get(idOrEmail) ?? this.d.model.userByEmail(idOrEmail);
    if (!u) throw new ModelError(404, `no user ${idOrEmail}`);
    return u.id;
  }

  state(): Record<string, unknown> {
    return {
      users: [...this.d.model.users.values()],
      clients: [...this.d.oauth.clients.values()].map((c) => ({
        clientId: c.clientId,
        redirectUris: c.redirectUris,
      })),
      calendars: this.d.model.allCalendars().map((c) => ({
        id: c.id,
        seq: c.seq,
        events: c.events.size,
        resourceId: c.resourceId,
      })),
      channels: this.channels(),
      grantedLifetimeS: this.d.channels.grantedLifetimeS(),
      faults: this.d.faults.describe(),
      pendingPushes: this.d.sender.pendingCount(),
    };
  }
}

type UserRequest = Parameters<GoogleControl["addUser"]>[0];

/** The input checked against its schema; a ModelError (400, with the pointer) when it is not. */
function input<T>(schema: Parameters<typeof readInput<T>>[0], raw: unknown): T {
  const r = readInput(schema, raw);
  if (!r.ok) throw new ModelError(400, r.message, r.pointer);
  return r.value;
}

const EVENT_PATH = /^\/_control\/calendars\/([^/]+)\/events(?:\/([^/]+)(?:\/(cancel))?)?$/;
const CALENDAR_PATH = /^\/_control\/calendars\/([^/]+)$/;

/** `/_control/...` over HTTP; `setNow` takes `{now: epoch ms}` (a fixed time) or `{now: null}`. */
export async function handleControl(
  r: GoogleRequest,
  res: ServerResponse,
  control: GoogleControl,
  setNow: (now: number | null) => void,
): Promise<void> {
  const body = jsonObject(r.body) ?? {};
  const ok = (v: unknown) => sendJson(res, 200, v);
  try {
    const route = `${r.method} ${r.path}`;
    const ev = EVENT_PATH.exec(r.path);
    if (ev?.[1]) {
      const cal = decodeURIComponent(ev[1]);
      const id = ev[2] === undefined ? undefined : decodeURIComponent(ev[2]);
      if (r.method === "POST" && id === undefined) return ok(control.addEvent(cal, body));
      if (r.method === "PATCH" && id !== undefined && !ev[3])
        return ok(control.editEvent(cal, id, body));
      if (r.method === "POST" && id !== undefined && ev[3]) return ok(control.cancelEvent(cal, id));
      if (r.method === "DELETE" && id !== undefined && !ev[3])
        return ok(control.deleteEvent(cal, id));
    }
    const calPath = CALENDAR_PATH.exec(r.path);
    if (calPath?.[1] && r.method === "DELETE") {
      control.removeCalendar(decodeURIComponent(calPath[1]));
      return ok({ ok: true });
    }
    switch (route) {
      case "GET /_control/state":
        return ok(control.state());
      case "POST /_control/clients":
        control.addClient(body as unknown as OAuthClient);
        return ok({ ok: true });
      case "POST /_control/users":
        return ok(control.addUser(body as unknown as UserRequest));
      case "POST /_control/consent":
        control.setAutoApprove(input(ConsentIn, body).autoApprove);
        return ok({ ok: true });
      case "GET /_control/channels":
        return ok({ channels: control.channels() });
      case "GET /_control/pushes":
        return ok({ pushes: control.pushes() });
      case "POST /_control/flush":
        await control.flushPushes();
        return ok({ ok: true });
      case "POST /_control/faults":
        return ok(control.faults(body as FaultRequest));
      case "POST /_control/granted-lifetime":
        return ok(control.setGrantedLifetime(body as { maxS: number | null }));
      case "POST /_control/clock":
        setNow(input(ClockIn, body).now);
        return ok({ ok: true });
    }
    sendJson(res, 404, { error: "unknown control route", route });
  } catch (e) {
    if (e instanceof ModelError) {
      return sendJson(res, e.status, {
        error: e.message,
        ...(e.pointer ? { pointer: e.pointer } : {}),
      });
    }
    throw e;
  }
}
