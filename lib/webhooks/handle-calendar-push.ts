import * as z from "zod";
import type { SyncMessage } from "../app/contracts";
import { isGoogleHandshake, verifyChannelToken, verifyClientState } from "./calendar-push";
import type { ChannelBinding, ChannelKind, WebhookDeps } from "./deps";
import { WebhookError } from "./errors";
import {
  jsonReply,
  parseJsonInput,
  textReply,
  type WebhookReply,
  type WebhookRequest,
} from "./http";
import { channelIdSchema, isChannelId, MAX_ID_LENGTH } from "./ids";
import { header, verifyV0 } from "./signature";

const graphNotificationSchema = z
  .object({
    subscriptionId: channelIdSchema,
    clientState: z.string().optional(),
    changeType: z.string().optional(),
    lifecycleEvent: z.enum(["reauthorizationRequired", "subscriptionRemoved", "missed"]).optional(),
  })
  .loose();
const graphBodySchema = z.object({ value: z.array(graphNotificationSchema).max(1000) });
type GraphNotification = z.infer<typeof graphNotificationSchema>;

/**
 * Distinct subscriptions looked up per request. Graph batches name the few subscriptions that
 * changed; the rest of a larger batch is left to the 15-minute poll.
 */
export const MAX_GRAPH_LOOKUPS = 100;

/**
 * Subscriptions that fail to authenticate before the rest of a batch is not looked up: an
 * unauthenticated caller costs at most this many reads, whatever the batch holds.
 */
export const MAX_GRAPH_FAILURES = 10;

/** Only the source's identity goes on the queue: never its secret. */
const pushOf = (channel: ChannelBinding): SyncMessage => ({
  team: channel.team,
  user: channel.user,
  sourceId: channel.sourceId,
  reason: "push",
});

const UNKNOWN_CHANNEL = "no source is bound to this channel";

/** The binding for `channelId` as seen by the `kind` hook, or undefined. */
async function lookupChannel(
  deps: WebhookDeps,
  channelId: string,
  kind: ChannelKind,
): Promise<ChannelBinding | undefined> {
  // An id that admin PUT would refuse can name no binding: answer without a read.
  if (!isChannelId(channelId)) return undefined;
  const channel = await deps.admin.findChannel(channelId);
  // A channel bound for another hook is not this hook's channel (its secret is another kind).
  if (channel?.kind !== undefined && channel.kind !== kind) return undefined;
  return channel;
}

async function channelOrRefuse(
  deps: WebhookDeps,
  channelId: string,
  kind: ChannelKind,
): Promise<ChannelBinding> {
  const channel = await lookupChannel(deps, channelId, kind);
  if (channel) return channel;
  const why = isChannelId(channelId)
    ? UNKNOWN_CHANNEL
    : `${UNKNOWN_CHANNEL}: channel ids are 1-${MAX_ID_LENGTH} characters`;
  throw new WebhookError("unknown_channel", why);
}

/** Google: the channel id names the source; the token is the one we chose when watching. */
export async function handleGooglePush(
  req: WebhookRequest,
  deps: WebhookDeps,
): Promise<WebhookReply> {
  const channelId = header(req.headers, "x-goog-channel-id");
  const state = header(req.headers, "x-goog-resource-state");
  if (!channelId || !state) {
    throw new WebhookError("bad_request", "missing X-Goog-Channel-ID or X-Goog-Resource-State");
  }
  const channel = await channelOrRefuse(deps, channelId, "google");
  verifyChannelToken(channel.secret, header(req.headers, "x-goog-channel-token"));
  const push = { channelId, token: undefined, resourceState: state, messageNumber: undefined };
  if (isGoogleHandshake(push)) return jsonReply(200, { ok: true, handshake: true });
  const queued = await deps.requestSync(pushOf(channel));
  return jsonReply(200, { ok: true, queued });
}

const clientStateMatches = (expected: string | undefined, got: string | undefined): boolean => {
  try {
    verifyClientState(expected, got);
    return true;
  } catch (error: unknown) {
    if (error instanceof WebhookError) return false;
    throw error;
  }
};

/**
 * Graph: echo the validation token; otherwise each notification names a subscription.
 * Notifications are grouped by subscription, so each costs at most one read and one re-sync,
 * and an unauthenticated batch stops being read after MAX_GRAPH_FAILURES subscriptions.
 * Lifecycle notifications (reauthorizationRequired, subscriptionRemoved) mean the
 * subscription must be renewed by whoever created it: they are logged as `needsRenewal`, and
 * the source is re-synced now; until renewal the 15-minute poll keeps the calendar current.
 */
export async function handleGraphNotification(
  req: WebhookRequest,
  deps: WebhookDeps,
): Promise<WebhookReply> {
  const validationToken = req.query.validationToken;
  if (validationToken !== undefined) return textReply(200, validationToken);
  const { value } = parseJsonInput(graphBodySchema, req.rawBody);
  const bySubscription = new Map<string, GraphNotification[]>();
  for (const note of value) {
    const group = bySubscription.get(note.subscriptionId);
    if (group) group.push(note);
    else bySubscription.set(note.subscriptionId, [note]);
  }
  const skipped = { unknownSubscription: 0, badClientState: 0, notLookedUp: 0 };
  let failures = 0;
  let lookups = 0;
  let authenticated = 0;
  let queued = 0;
  for (const [subscriptionId, notes] of bySubscription) {
    if (failures >= MAX_GRAPH_FAILURES || lookups >= MAX_GRAPH_LOOKUPS) {
      skipped.notLookedUp += notes.length;
      continue;
    }
    lookups++;
    const channel = await lookupChannel(deps, subscriptionId, "graph");
    if (!channel) {
      skipped.unknownSubscription += notes.length;
      failures++;
      continue;
    }
    const genuine = notes.filter((n) => clientStateMatches(channel.secret, n.clientState));
    skipped.badClientState += notes.length - genuine.length;
    if (genuine.length === 0) {
      failures++;
      continue;
    }
    authenticated += genuine.length;
    const lifecycleEvents = new Set(genuine.flatMap((n) => n.lifecycleEvent ?? []));
    for (const lifecycleEvent of lifecycleEvents) {
      deps.log.warn("graph lifecycle notification", {
        team: channel.team,
        user: channel.user,
        sourceId: channel.sourceId,
        lifecycleEvent,
        needsRenewal: lifecycleEvent !== "missed",
      });
    }
    if (await deps.requestSync(pushOf(channel))) queued++;
  }
  if (authenticated < value.length) {
    // One line per request, however many notifications it carried; never the clientStates.
    deps.log.warn("graph notifications skipped", {
      notifications: value.length,
      subscriptions: bySubscription.size,
      ...skipped,
    });
  }
  if (value.length > 0 && authenticated === 0) {
    throw new WebhookError("bad_client_state", "no notification could be authenticated");
  }
  return jsonReply(202, { ok: true, queued });
}

/** Generic: signed like service events (v0 HMAC), with the source's own secret. */
export async function handleGenericHook(
  req: WebhookRequest,
  deps: WebhookDeps,
): Promise<WebhookReply> {
  const channel = await channelOrRefuse(deps, req.params.sourceId ?? "", "generic");
  if (!channel.secret) throw new WebhookError("no_secret", "this source has no hook secret");
  verifyV0(
    channel.secret,
    {
      rawBody: req.rawBody,
      timestamp: header(req.headers, "x-statuspilot-timestamp"),
      signature: header(req.headers, "x-statuspilot-signature"),
    },
    deps.clock.now(),
  );
  const queued = await deps.requestSync(pushOf(channel));
  return jsonReply(200, { ok: true, queued });
}

/** The hook each calendar route serves, by API Gateway route key (functions/routes.ts). */
export const CALENDAR_HOOK_ROUTES: Readonly<Record<string, ChannelKind>> = {
  "POST /hooks/google": "google",
  "POST /hooks/graph": "graph",
  "POST /hooks/generic/{sourceId}": "generic",
};

/** A calendar push and the route API Gateway matched it to. */
export interface CalendarPushRequest extends WebhookRequest {
  routeKey: string;
}

/**
 * POST /hooks/google, /hooks/graph, /hooks/generic/{sourceId}: each push enqueues a re-sync.
 * Dispatched on the matched route: the decoded path of `/hooks/generic/x%2Fhooks%2Fgraph`
 * ends like the Graph hook's, but it is the generic hook with the channel id `x/hooks/graph`.
 */
export async function handleCalendarPush(
  req: CalendarPushRequest,
  deps: WebhookDeps,
): Promise<WebhookReply> {
  const hook = Object.hasOwn(CALENDAR_HOOK_ROUTES, req.routeKey)
    ? CALENDAR_HOOK_ROUTES[req.routeKey]
    : undefined;
  if (hook === "google") return handleGooglePush(req, deps);
  if (hook === "graph") return handleGraphNotification(req, deps);
  if (hook === "generic") return handleGenericHook(req, deps);
  throw new WebhookError("not_found", "no calendar hook on this route");
}
