import { createHash } from "node:crypto";
import { isGoogleHandshake } from "#lib/http/calendar-push";
import { channelTokenMatches } from "#lib/http/channel-token";
import { WebhookError } from "#lib/http/errors";
import { jsonReply, type WebhookRequest } from "#lib/http/request";
import { header } from "#lib/http/signature";
import { ProviderError } from "./errors";
import { type EventsListing, listEvents, stopChannel, watchEvents } from "./google-api";
import { googleCalendarName, mapGoogleEvents } from "./google-events";
import { icsProvider } from "./ics";
import type {
  ApiReadDeps,
  ApiSource,
  ApiWindowFetch,
  CalendarProvider,
  PushChannel,
  PushDeps,
  PushHook,
  PushLifecycle,
  PushVerdict,
  SyncWindow,
} from "./provider";
import { requireChannelId } from "./push-channel";

/**
 * Google Calendar: a watch channel pushes to POST /hooks/google, and each push re-syncs the
 * channel's source.
 *
 * Reading: a source connected through OAuth is read with the Calendar API (`readApi`:
 * events.list, google-api.ts; mapping, google-events.ts). A Google source given by its secret
 * ICS address (as before the API) is still read as a feed (`fetchWindow`).
 */
export const googleProvider = {
  // The ICS provider's read and address rule, under this kind, for address-only sources.
  ...icsProvider,
  kind: "google",
  readApi: readGoogleWindow,
} as const satisfies CalendarProvider;

/**
 * One read of a connected calendar. With a cursor, an incremental events.list first: no change
 * answers "unchanged" for one cheap call. A change (or no cursor, or a 410 Gone for an expired
 * one) reads the window in full, because the timeline is rebuilt from every occurrence in it.
 * The cursor stored next is the newest sync token seen, so nothing changed after it is missed.
 */
export async function readGoogleWindow(
  source: ApiSource,
  window: SyncWindow,
  deps: ApiReadDeps,
): Promise<ApiWindowFetch> {
  let probe: EventsListing | undefined;
  if (source.cursor !== undefined) {
    try {
      probe = await listEvents(deps, { syncToken: source.cursor });
    } catch (err) {
      if (!(err instanceof ProviderError && err.code === "sync_token_expired")) throw err;
    }
    if (probe !== undefined && probe.events.length === 0 && source.refresh !== true) {
      return {
        fetch: { kind: "unchanged", reason: "same_content", validators: {} },
        cursor: probe.nextSyncToken ?? source.cursor,
      };
    }
  }
  const full = await listEvents(deps, { timeMin: window.from, timeMax: window.to });
  const cursor = probe?.nextSyncToken ?? full.nextSyncToken;
  const { occurrences, skipped } = mapGoogleEvents(full.events, { zone: source.tz, ...window });
  const hash = sha256Hex(JSON.stringify(occurrences));
  const withCursor = {
    ...(cursor !== undefined ? { cursor } : {}),
    ...(probe !== undefined && probe.events.length > 0 ? { changedSinceCursor: true } : {}),
  };
  if (source.hash === hash) {
    return { fetch: { kind: "unchanged", reason: "same_content", validators: {} }, ...withCursor };
  }
  const name = googleCalendarName(full.summary, full.events);
  return {
    fetch: {
      kind: "fetched",
      ...(name !== undefined ? { name } : {}),
      occurrences,
      skipped,
      warnings: [],
      validators: { hash },
    },
    ...withCursor,
  };
}

const sha256Hex = (text: string): string => createHash("sha256").update(text).digest("hex");

/**
 * Google's watch channels: events.watch creates one. Google has no renewal, so a renewal is a
 * new channel, and the old one keeps pushing beside it: the caller stops it (unsubscribe) once
 * its record names the new one, so a renewal whose record write fails leaves the recorded
 * channel open (lib/app/push/upkeep.ts). A stop that fails leaves the old channel to expire by
 * itself: its pushes still authenticate until the binding is retired, and only cost a sync.
 */
export const googlePushLifecycle = (apiBaseUrl: string): PushLifecycle => ({
  subscribe: (req, deps) => watchEvents({ ...deps, apiBaseUrl }, req),
  renew: (_current, req, deps) => watchEvents({ ...deps, apiBaseUrl }, req),
  unsubscribe: (current, deps) => stopChannel({ ...deps, apiBaseUrl }, current),
});

/** Its push hook (the registry routes pushes to it). */
export const googlePushHook = {
  routeKey: "POST /hooks/google",
  verifyPush: verifyGooglePush,
} as const satisfies PushHook;

/**
 * Every refusal of a channel says the same whether the id is bound or not, so answers cannot
 * tell which ids exist.
 */
const GOOGLE_REFUSAL = "unknown channel or channel token does not match";

/**
 * The token (derived from the channel id, see lib/http/channel-token.ts) is checked before
 * the channel is read; an unknown channel answers exactly like a wrong token. `sync` opens a
 * channel: it is acknowledged and syncs nothing.
 */
async function verifyGooglePush<C extends PushChannel>(
  req: WebhookRequest,
  deps: PushDeps<C>,
): Promise<PushVerdict<C>> {
  const channelId = header(req.headers, "x-goog-channel-id");
  const state = header(req.headers, "x-goog-resource-state");
  if (!channelId || !state) {
    throw new WebhookError("bad_request", "missing X-Goog-Channel-ID or X-Goog-Resource-State");
  }
  requireChannelId(channelId);
  const token = header(req.headers, "x-goog-channel-token");
  if (!channelTokenMatches(await deps.signingSecret(), channelId, token)) {
    throw new WebhookError("bad_channel_token", GOOGLE_REFUSAL);
  }
  const channel = await deps.findChannel(channelId);
  if (!channel) throw new WebhookError("bad_channel_token", GOOGLE_REFUSAL);
  // Google numbers each channel's messages (1 for `sync`); a gap only means a message was lost,
  // and every `exists` / `not_exists` triggers a full incremental sync anyway.
  const messageNumber = header(req.headers, "x-goog-message-number");
  deps.log.debug("google push", { resourceState: state, messageNumber });
  const push = { channelId, token: undefined, resourceState: state, messageNumber: undefined };
  if (isGoogleHandshake(push)) {
    return { kind: "answer", reply: jsonReply(200, { ok: true, handshake: true }) };
  }
  return {
    kind: "accepted",
    channels: [channel],
    reply: (queued) => jsonReply(200, { ok: true, queued: queued[0] ?? false }),
  };
}
