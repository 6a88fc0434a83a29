import { z } from "zod";
import type { SyncMessage } from "../app/contracts";
import { isGoogleHandshake, verifyChannelToken, verifyClientState } from "./calendar-push";
import type { ChannelBinding, WebhookDeps } from "./deps";
import { WebhookError } from "./errors";
import {
  jsonReply,
  parseJsonInput,
  textReply,
  type WebhookReply,
  type WebhookRequest,
} from "./http";
import { header, verifyV0 } from "./signature";

const graphNotificationSchema = z
  .object({
    subscriptionId: z.string().min(1),
    clientState: z.string().optional(),
    changeType: z.string().optional(),
    lifecycleEvent: z.enum(["reauthorizationRequired", "subscriptionRemoved", "missed"]).optional(),
  })
  .loose();
const graphBodySchema = z.object({ value: z.array(graphNotificationSchema).max(1000) });

/** Only the source's identity goes on the queue: never its secret. */
const pushOf = (channel: ChannelBinding): SyncMessage => ({
  team: channel.team,
  user: channel.user,
  sourceId: channel.sourceId,
  reason: "push",
});

async function channelOrRefuse(deps: WebhookDeps, channelId: string): Promise<ChannelBinding> {
  const channel = await deps.admin.findChannel(channelId);
  if (!channel) throw new WebhookError("unknown_channel", "no source is bound to this channel");
  return channel;
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
  const channel = await channelOrRefuse(deps, channelId);
  verifyChannelToken(channel.secret, header(req.headers, "x-goog-channel-token"));
  const push = { channelId, token: undefined, resourceState: state, messageNumber: undefined };
  if (isGoogleHandshake(push)) return jsonReply(200, { ok: true, handshake: true });
  const queued = await deps.requestSync(pushOf(channel));
  return jsonReply(200, { ok: true, queued });
}

/**
 * Graph: echo the validation token; otherwise each notification names a subscription.
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
  let queued = 0;
  let refused = 0;
  for (const note of value) {
    const channel = await deps.admin.findChannel(note.subscriptionId);
    if (!channel) {
      deps.log.warn("graph notification skipped: unknown subscription");
      refused++;
      continue;
    }
    try {
      verifyClientState(channel.secret, note.clientState);
    } catch (error: unknown) {
      if (!(error instanceof WebhookError)) throw error;
      deps.log.warn("graph notification skipped: clientState mismatch", {
        sourceId: channel.sourceId,
      });
      refused++;
      continue;
    }
    if (note.lifecycleEvent) {
      deps.log.warn("graph lifecycle notification", {
        team: channel.team,
        user: channel.user,
        sourceId: channel.sourceId,
        lifecycleEvent: note.lifecycleEvent,
        needsRenewal: note.lifecycleEvent !== "missed",
      });
    }
    if (await deps.requestSync(pushOf(channel))) queued++;
  }
  if (refused > 0 && refused === value.length) {
    throw new WebhookError("bad_client_state", "no notification could be authenticated");
  }
  return jsonReply(202, { ok: true, queued });
}

/** Generic: signed like service events (v0 HMAC), with the source's own secret. */
export async function handleGenericHook(
  req: WebhookRequest,
  deps: WebhookDeps,
): Promise<WebhookReply> {
  const channel = await channelOrRefuse(deps, req.params.sourceId ?? "");
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

/** POST /hooks/google, /hooks/graph, /hooks/generic/{sourceId}: each push enqueues a re-sync. */
export async function handleCalendarPush(
  req: WebhookRequest,
  deps: WebhookDeps,
): Promise<WebhookReply> {
  if (req.path.endsWith("/hooks/google")) return handleGooglePush(req, deps);
  if (req.path.endsWith("/hooks/graph")) return handleGraphNotification(req, deps);
  if (req.params.sourceId !== undefined) return handleGenericHook(req, deps);
  throw new WebhookError("not_found", `no calendar hook at ${req.path}`);
}
