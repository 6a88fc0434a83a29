import * as z from "zod";
import type { SyncMessage } from "../app/contracts";
import { isGoogleHandshake } from "./calendar-push";
import { channelToken, channelTokenMatches } from "./channel-token";
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
import { BAD_SIGNATURE, header, verifyV0 } from "./signature";

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
 * Subscriptions whose authenticated notifications name no binding before the rest of a batch is
 * not looked up. Only a holder of the signing secret can reach a lookup at all.
 */
export const MAX_GRAPH_FAILURES = 10;

/** Only the source's identity goes on the queue: never its secret. */
const pushOf = (channel: ChannelBinding): SyncMessage => ({
  team: channel.team,
  user: channel.user,
  sourceId: channel.sourceId,
  reason: "push",
});

/**
 * Every refusal of a channel says the same whether the id is bound or not, so answers cannot
 * tell which ids exist.
 */
const GOOGLE_REFUSAL = "unknown channel or channel token does not match";
const GRAPH_REFUSAL = "no notification could be authenticated";

/** The binding for an authenticated `channelId` as seen by the `kind` hook, or undefined. */
async function lookupChannel(
  deps: WebhookDeps,
  channelId: string,
  kind: ChannelKind,
): Promise<ChannelBinding | undefined> {
  const channel = await deps.admin.findChannel(channelId);
  // A channel bound for another hook is not this hook's channel.
  if (channel?.kind !== undefined && channel.kind !== kind) return undefined;
  return channel;
}

/** An id that admin PUT would refuse can name no binding: refused by its form, before any work. */
function requireChannelId(channelId: string): void {
  if (!isChannelId(channelId)) {
    throw new WebhookError(
      "unknown_channel",
      `no source is bound to this channel: channel ids are 1-${MAX_ID_LENGTH} characters`,
    );
  }
}

/**
 * Google: the token (derived from the channel id, see channel-token.ts) is checked before the
 * channel is read; an unknown channel answers exactly like a wrong token.
 */
export async function handleGooglePush(
  req: WebhookRequest,
  deps: WebhookDeps,
): Promise<WebhookReply> {
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
  const channel = await lookupChannel(deps, channelId, "google");
  if (!channel) throw new WebhookError("bad_channel_token", GOOGLE_REFUSAL);
  const push = { channelId, token: undefined, resourceState: state, messageNumber: undefined };
  if (isGoogleHandshake(push)) return jsonReply(200, { ok: true, handshake: true });
  const queued = await deps.requestSync(pushOf(channel));
  return jsonReply(200, { ok: true, queued });
}

/**
 * Graph: echo the validation token; otherwise each notification names a subscription, and its
 * clientState must be the subscription's derived token. Notifications are authenticated before
 * anything is read, then grouped by subscription, so each authenticated subscription costs at
 * most one read and one re-sync, and an unauthenticated batch costs no read or decrypt at all.
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
  const skipped = { unknownSubscription: 0, badClientState: 0, notLookedUp: 0 };
  const signingSecret = value.length > 0 ? await deps.signingSecret() : "";
  const bySubscription = new Map<string, GraphNotification[]>();
  for (const note of value) {
    if (!channelTokenMatches(signingSecret, note.subscriptionId, note.clientState)) {
      skipped.badClientState++;
      continue;
    }
    const group = bySubscription.get(note.subscriptionId);
    if (group) group.push(note);
    else bySubscription.set(note.subscriptionId, [note]);
  }
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
    authenticated += notes.length;
    const lifecycleEvents = new Set(notes.flatMap((n) => n.lifecycleEvent ?? []));
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
    throw new WebhookError("bad_client_state", GRAPH_REFUSAL);
  }
  return jsonReply(202, { ok: true, queued });
}

/**
 * Generic: signed like service events (v0 HMAC over timestamp and body), keyed by the channel's
 * derived token, so the signature is checked before the channel is read. A valid signature for
 * an unbound id answers like a bad one.
 */
export async function handleGenericHook(
  req: WebhookRequest,
  deps: WebhookDeps,
): Promise<WebhookReply> {
  const channelId = req.params.sourceId ?? "";
  requireChannelId(channelId);
  verifyV0(
    channelToken(await deps.signingSecret(), channelId),
    {
      rawBody: req.rawBody,
      timestamp: header(req.headers, "x-statuspilot-timestamp"),
      signature: header(req.headers, "x-statuspilot-signature"),
    },
    deps.clock.now(),
  );
  const channel = await lookupChannel(deps, channelId, "generic");
  if (!channel) throw new WebhookError("bad_signature", BAD_SIGNATURE);
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
