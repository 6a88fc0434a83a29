import type { Clock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";
import type { Occurrence } from "#lib/core/types";
import type { WebhookReply, WebhookRequest } from "#lib/http/request";
import type { FeedAddressGuard } from "../feed-fetch";
import type { SourceAddressPolicy } from "../source-rules";

/**
 * The contract every calendar provider fulfils: how a source of its kind is read over a window
 * (lib/app/sync/sync.ts calls `fetchWindow`) and where its address may point. A provider that pushes
 * changes also exports a PushHook (below): how its hook authenticates a push
 * (lib/webhooks/handle-calendar-push.ts calls `verifyPush`). Both are listed in registry.ts.
 *
 * The hook is a separate object, not a property, so that a bundle that only reads calendars (or
 * only checks kinds) leaves every hook's verification out: esbuild drops unused exports, not
 * unused properties.
 */
export interface CalendarProvider {
  /** The `kind` stored with a source (and with a push channel, when the provider pushes). */
  readonly kind: string;
  /** Reads the source's calendar over `window`, or says it did not change since `validators`. */
  fetchWindow(source: WindowSource, window: SyncWindow, deps: FetchDeps): Promise<WindowFetch>;
  /** Why `address` cannot be a source of this kind under `policy`; undefined when it can. */
  sourceAddressProblem(address: string, policy: SourceAddressPolicy): string | undefined;
  /**
   * Reads a source connected through the provider's API (OAuth) over `window`, incrementally
   * from `source.cursor` when it is given. Only providers with an API have it; their sources
   * without a connection are still read by `fetchWindow`.
   */
  readApi?(source: ApiSource, window: SyncWindow, deps: ApiReadDeps): Promise<ApiWindowFetch>;
}

/** What an API read knows about a connected source. */
export interface ApiSource {
  tz: string;
  emails: string[];
  /** The cursor the last read stored (Google nextSyncToken, Graph deltaLink). */
  cursor?: string;
  /** The hash of the occurrences the last full read found, to answer "unchanged". */
  hash?: string;
  /** Read the window in full even when the cursor says nothing changed (the horizon slid). */
  refresh?: boolean;
}

/** An API read's deps: the shared ones, the provider's configured base URL, and a re-login. */
export interface ApiReadDeps extends ApiDeps {
  apiBaseUrl: string;
  /** Forces a new access token after a 401. */
  refreshAccessToken?(): Promise<string>;
}

/** What a provider reads about a source. */
export interface WindowSource {
  /** The calendar's address (an ICS feed URL today). Its path is secret: never log it whole. */
  url: string;
  /** The owner's IANA zone, for floating times. */
  tz: string;
  /** The owner's addresses, to find their own attendance (declined meetings). */
  emails: string[];
  /**
   * What the last check of the source recorded. Present only when the provider may answer
   * "unchanged" on their strength; absent, it reads the calendar in full.
   */
  validators?: SourceValidators;
}

/** What a check records to recognise an unchanged calendar next time. */
export interface SourceValidators {
  etag?: string;
  lastModified?: string;
  /** SHA-256 of the calendar's content, hex. */
  hash?: string;
}

/** The span of time a sync reads, epoch ms. */
export interface SyncWindow {
  from: number;
  to: number;
}

/** The calendar engine's answer for one calendar text (lib/calendar/expand). */
export interface Expansion {
  occurrences: Occurrence[];
  skipped: Array<{ reason: string; uid?: string }>;
  /** What the feed got wrong but was read anyway (a guessed time zone, a dropped line). */
  warnings?: Array<{ message: string; uid?: string; tzid?: string }>;
}

/**
 * lib/calendar's expand. Injected rather than imported, so that a provider module never pulls
 * ical.js into a bundle (the hooks' bundles import the registry), and tests can count calls.
 */
export type ExpandFn = (
  icsText: string,
  opts: { from: number; to: number; userZone: string; userEmails?: string[] },
) => Expansion | Promise<Expansion>;

/** What a provider's read may use. */
export interface FetchDeps {
  fetch: typeof fetch;
  expand: ExpandFn;
  /** Which addresses may be fetched; without it any http(s) address is (a bare sync). */
  addressGuard?: FeedAddressGuard;
  /** Largest calendar body read, in bytes. */
  maxBytes: number;
  /** How long one read may take, in ms. */
  timeoutMs: number;
}

/**
 * A read's result. Failures worth a retry (network, timeout, the server failing) are thrown as
 * SyncError instead; `skipped` is for what no retry can fix until an admin changes the source.
 */
export type WindowFetch =
  | {
      kind: "fetched";
      /** The calendar's display name (lib/calendar/calendar-name.ts), when one is known. */
      name?: string;
      occurrences: Occurrence[];
      skipped: Expansion["skipped"];
      warnings: NonNullable<Expansion["warnings"]>;
      validators: SourceValidators & { hash: string };
    }
  | {
      kind: "unchanged";
      reason: "not_modified" | "same_content";
      /** The validators the calendar sent with this answer, if any. */
      validators: Omit<SourceValidators, "hash">;
    }
  | {
      kind: "skipped";
      /** Short machine-readable reason (`http_404`, `too_large`, `private_address`). */
      reason: string;
      /** The log line that says why. */
      message: string;
      /** What the log line adds (never the source's secret address). */
      detail: Record<string, unknown>;
    };

/** A push channel as its hook sees it (lib/webhooks' ChannelBinding has this shape). */
export interface PushChannel {
  team: string;
  user: string;
  sourceId: string;
}

/** What a push hook may use while it authenticates. */
export interface PushDeps<C extends PushChannel = PushChannel> {
  clock: Clock;
  log: Log;
  /** The service's signing secret: channel tokens derive from it (lib/http/channel-token.ts). */
  signingSecret(): Promise<string>;
  /**
   * The channel bound under `channelId` for this provider's kind, or undefined (also when it is
   * bound for another kind). A read: call it only after the push is authenticated.
   */
  findChannel(channelId: string): Promise<C | undefined>;
}

/**
 * What a push comes to. Refusals are thrown as WebhookError (lib/http/errors.ts), each
 * answering alike whether the channel exists or not.
 */
export type PushVerdict<C extends PushChannel = PushChannel> =
  /** Answered without a sync: a subscription's validation or a channel's opening handshake. */
  | { kind: "answer"; reply: WebhookReply }
  /** Authenticated pushes for these channels: each source is re-synced, then `reply` answers. */
  | {
      kind: "accepted";
      channels: C[];
      /** What the pushes ask of the channels' owner besides the re-sync (Graph lifecycle events). */
      lifecycle?: PushLifecycleAction<C>[];
      reply(queued: readonly boolean[]): WebhookReply;
    };

/**
 * A lifecycle push's request: `renew` the subscription now (Graph reauthorizationRequired),
 * `recreate` it (subscriptionRemoved), or `resync` the source (missed; the re-sync every accepted
 * push gets already covers it).
 */
export interface PushLifecycleAction<C extends PushChannel = PushChannel> {
  channel: C;
  action: "renew" | "recreate" | "resync";
  /** The provider's subscription the event named (Graph's subscription id). */
  subscriptionId?: string;
}

/** A provider's push endpoint; its channels are bound with the provider's kind. */
export interface PushHook {
  /** The API Gateway route key that reaches it (functions/routes.ts, serverless.yml). */
  readonly routeKey: string;
  /**
   * Authenticates `request` (channel token, clientState or signature, before any read) and
   * names the channels it concerns.
   */
  verifyPush<C extends PushChannel>(
    request: WebhookRequest,
    deps: PushDeps<C>,
  ): Promise<PushVerdict<C>>;
}

/** A live push channel (Google watch channel) or subscription (Graph). */
export interface PushSubscription {
  /** Ours for Google (unguessable), Graph's subscription id. */
  channelId: string;
  /** Google's resourceId (channels.stop needs it). */
  resourceId?: string;
  /** Epoch ms. */
  expiresAt: number;
}

/** What an API-backed provider's calls may use. */
export interface ApiDeps {
  fetch: typeof fetch;
  /** A valid access token for the source's connected account (refreshed by the app layer). */
  accessToken(): Promise<string>;
  clock: Clock;
}

/** What a channel or subscription is created (or renewed) with. */
export interface PushRequest {
  notificationUrl: string;
  lifecycleUrl?: string;
  token: string;
  channelId: string;
  ttlMs: number;
}

/** How an API-backed provider's push channel is created, renewed and ended. */
export interface PushLifecycle {
  /** Creates a channel/subscription that pushes to `notificationUrl` for the source's calendar. */
  subscribe(req: PushRequest, deps: ApiDeps): Promise<PushSubscription>;
  /**
   * Google: a new channel, the old one left open for the caller to stop once the new one is
   * recorded. Graph: PATCH expirationDateTime (the same subscription).
   */
  renew(current: PushSubscription, req: PushRequest, deps: ApiDeps): Promise<PushSubscription>;
  unsubscribe(current: PushSubscription, deps: ApiDeps): Promise<void>;
}

/** OAuth 2.0 authorization-code client of a calendar provider. */
export interface CalendarOAuth {
  authorizeUrl(p: {
    clientId: string;
    redirectUri: string;
    state: string;
    authUrl: string;
  }): string;
  /** Exchanges a code, or a refresh token, at tokenUrl; throws ProviderError code "invalid_grant" when dead. */
  exchange(
    p: {
      grant: { code: string; redirectUri: string } | { refreshToken: string };
      clientId: string;
      clientSecret: string;
      tokenUrl: string;
    },
    // Named fetchFn: a parameter named `fetch` would be its own type (`typeof fetch`).
    fetchFn: typeof fetch,
  ): Promise<{ accessToken: string; refreshToken?: string; expiresInS: number }>;
}

/**
 * An API read's result: the window's occurrences (or unchanged/skipped, as for ICS) and the
 * cursor (Google nextSyncToken, Graph deltaLink) the app stores on the source for the next
 * incremental read.
 */
export interface ApiWindowFetch {
  fetch: WindowFetch;
  cursor?: string;
  /** The incremental read from the stored cursor found changes (a push should have said so). */
  changedSinceCursor?: boolean;
}
