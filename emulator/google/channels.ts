import type { Clock } from "#lib/core/clock";
import type { CalendarState, GoogleUser } from "./calendar-model";
import { badRequest, GoogleApiError } from "./errors";
import type { PushSender } from "./push";

/**
 * Notification channels (events.watch, channels.stop). A channel lives until its expiration on
 * the emulator's clock, or until stopped; Google sends nothing when it ends. Its first message
 * is `sync` (message number 1); each change of the calendar then sends `exists` to every live
 * channel on it, with the channel's message number increasing.
 */

export interface Channel {
  id: string;
  resourceId: string;
  resourceUri: string;
  address: string;
  token?: string;
  /** Epoch ms. */
  expiresAt: number;
  calendarId: string;
  userId: string;
  createdAt: number;
  messageNumber: number;
  stopped: boolean;
  /** When channels.stop (or the calendar's removal) ended it, epoch ms. */
  stoppedAt?: number;
  /** Fault: the channel stays "live" but sends nothing (Google ended it without a word). */
  silent: boolean;
}

export type ChannelView = Channel & { live: boolean };

/** Google's default `params.ttl`: 7 days. */
export const DEFAULT_TTL_S = 604_800;
/** The longest ttl granted here by default (Google's limit for Calendar is not public). */
export const MAX_TTL_S = 30 * 86_400;
const CHANNEL_ID = /^[A-Za-z0-9\-_+/=]{1,64}$/;

/** The https rule, with loopback http allowed so that a local stack needs no TLS. */
function webhookAddressOk(address: string): boolean {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return false;
  }
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

export class ChannelRegistry {
  private readonly channels = new Map<string, Channel>();
  /**
   * The longest lifetime granted to a new channel (seconds). Google may grant less than a watch
   * asks for: the answer's `expiration` is the one that holds.
   */
  private grantedMaxS = MAX_TTL_S;

  constructor(
    private readonly clock: () => Clock,
    private readonly sender: PushSender,
  ) {}

  /** Grants new channels at most `maxS` seconds; undefined: back to the default (MAX_TTL_S). */
  setGrantedLifetime(maxS: number | undefined): void {
    this.grantedMaxS = maxS ?? MAX_TTL_S;
  }

  grantedLifetimeS(): number {
    return this.grantedMaxS;
  }

  private live(c: Channel): boolean {
    return !c.stopped && c.expiresAt > this.clock().now();
  }

  /** POST .../events/watch. `resourceUri` is the watched collection's address. */
  watch(
    user: GoogleUser,
    cal: CalendarState,
    body: Record<string, unknown> | undefined,
    resourceUri: string,
  ): Record<string, unknown> {
    if (!body) throw badRequest("parseError", "Parse Error");
    const { id, type, address, token, params, expiration } = body;
    if (typeof id !== "string" || id === "") throw badRequest("required", "Required", "id");
    if (!CHANNEL_ID.test(id)) {
      throw badRequest("push.channelIdInvalid", "Channel id must match [A-Za-z0-9\\-_\\+/=]+");
    }
    if (type !== "web_hook" && type !== "webhook") {
      throw badRequest("push.invalidChannelType", `Invalid channel type: ${String(type)}`);
    }
    if (typeof address !== "string" || address === "") {
      throw badRequest("push.webhookUrlMissing", "WebHook callback must be specified.");
    }
    if (!webhookAddressOk(address)) {
      throw badRequest("push.webhookUrlNotHttps", `WebHook callback must be HTTPS: ${address}`);
    }
    if (token !== undefined && typeof token !== "string") {
      throw badRequest("invalid", "Invalid value for: token", "token");
    }
    const existing = this.channels.get(id);
    if (existing && this.live(existing)) {
      throw badRequest("push.channelIdNotUnique", `Channel id ${id} not unique`);
    }
    const now = this.clock().now();
    let ttlS = DEFAULT_TTL_S;
    const rawTtl = (params as Record<string, unknown> | undefined)?.ttl;
    if (rawTtl !== undefined) {
      ttlS = Number(rawTtl);
      if (!Number.isFinite(ttlS) || ttlS <= 0) {
        throw badRequest("invalid", `Invalid value for: params.ttl`, "params.ttl");
      }
    }
    let expiresAt = now + Math.min(ttlS, this.grantedMaxS) * 1000;
    if (expiration !== undefined) {
      const requested = Number(expiration);
      if (Number.isFinite(requested) && requested > now) expiresAt = Math.min(expiresAt, requested);
    }
    const channel: Channel = {
      id,
      resourceId: cal.resourceId,
      resourceUri,
      address,
      ...(typeof token === "string" ? { token } : {}),
      expiresAt: Math.floor(expiresAt),
      calendarId: cal.id,
      userId: user.id,
      createdAt: now,
      messageNumber: 0,
      stopped: false,
      silent: false,
    };
    this.channels.set(id, channel);
    this.notify(channel, "sync");
    return {
      kind: "api#channel",
      id,
      resourceId: channel.resourceId,
      resourceUri,
      ...(channel.token !== undefined ? { token: channel.token } : {}),
      expiration: String(channel.expiresAt),
    };
  }

  /** POST /channels/stop: the channel's creator, its id and resourceId. */
  stop(user: GoogleUser, body: Record<string, unknown> | undefined): void {
    if (!body) throw badRequest("parseError", "Parse Error");
    const { id, resourceId } = body;
    if (typeof id !== "string" || id === "") throw badRequest("required", "Required", "id");
    const c = this.channels.get(id);
    if (!c || !this.live(c) || c.resourceId !== resourceId || c.userId !== user.id) {
      throw new GoogleApiError(404, {
        domain: "global",
        reason: "notFound",
        message: `Channel '${id}' not found for project 'emulator'`,
      });
    }
    c.stopped = true;
    c.stoppedAt = this.clock().now();
  }

  /** A change of the calendar: `exists` to every live channel on it. */
  changed(cal: CalendarState): void {
    for (const c of this.channels.values()) {
      if (c.calendarId === cal.id && this.live(c)) this.notify(c, "exists");
    }
  }

  /** The calendar is gone: `not_exists` to its live channels, which then end. */
  removed(cal: CalendarState): void {
    for (const c of this.channels.values()) {
      if (c.calendarId === cal.id && this.live(c)) {
        this.notify(c, "not_exists");
        c.stopped = true;
        c.stoppedAt = this.clock().now();
      }
    }
  }

  private notify(c: Channel, state: "sync" | "exists" | "not_exists"): void {
    c.messageNumber += 1;
    if (c.silent) return;
    this.sender.send({
      channelId: c.id,
      address: c.address,
      state,
      messageNumber: c.messageNumber,
      headers: {
        "x-goog-channel-id": c.id,
        ...(c.token !== undefined ? { "x-goog-channel-token": c.token } : {}),
        "x-goog-channel-expiration": new Date(c.expiresAt).toUTCString(),
        "x-goog-resource-id": c.resourceId,
        "x-goog-resource-uri": c.resourceUri,
        "x-goog-resource-state": state,
        "x-goog-message-number": String(c.messageNumber),
      },
    });
  }

  /** Fault: the channel goes quiet without ending. */
  silence(id: string): boolean {
    const c = this.channels.get(id);
    if (!c) return false;
    c.silent = true;
    return true;
  }

  list(): ChannelView[] {
    return [...this.channels.values()].map((c) => ({ ...c, live: this.live(c) }));
  }
}
