import { z } from "zod";
import type { SyncMessage } from "../../lib/app/contracts";
import type { App, ChannelBinding } from "../../lib/app/root";
import {
  header,
  isGoogleHandshake,
  verifyChannelToken,
  verifyClientState,
  verifyV0,
} from "../../lib/webhooks";
import {
  HttpRefusal,
  type HttpRequest,
  type HttpResult,
  httpHandler,
  json,
  parseJsonBody,
  text,
} from "../shared/http";

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

async function channelOrRefuse(app: App, channelId: string) {
  const channel = await app.admin.findChannel(channelId);
  if (!channel) throw new HttpRefusal(404, "unknown_channel", "no source is bound to this channel");
  return channel;
}

/** Google: the channel id names the source; the token is the one we chose when watching. */
async function google(req: HttpRequest, app: App): Promise<HttpResult> {
  const channelId = header(req.headers, "x-goog-channel-id");
  const state = header(req.headers, "x-goog-resource-state");
  if (!channelId || !state) {
    return json(400, {
      error: "bad_request",
      message: "missing X-Goog-Channel-ID or -Resource-State",
    });
  }
  const channel = await channelOrRefuse(app, channelId);
  verifyChannelToken(channel.secret, header(req.headers, "x-goog-channel-token"));
  const push = { channelId, token: undefined, resourceState: state, messageNumber: undefined };
  if (isGoogleHandshake(push)) return json(200, { ok: true, handshake: true });
  const queued = await app.requestSync(pushOf(channel));
  return json(200, { ok: true, queued });
}

/** Graph: echo the validation token; otherwise each notification names a subscription. */
async function graph(req: HttpRequest, app: App): Promise<HttpResult> {
  const validationToken = req.query.validationToken;
  if (validationToken !== undefined) return text(200, validationToken);
  const { value } = parseJsonBody(graphBodySchema, req.rawBody);
  let queued = 0;
  let refused = 0;
  for (const note of value) {
    const channel = await app.admin.findChannel(note.subscriptionId);
    if (!channel) {
      app.log.warn("graph notification skipped: unknown subscription");
      refused++;
      continue;
    }
    try {
      verifyClientState(channel.secret, note.clientState);
    } catch {
      app.log.warn("graph notification skipped: clientState mismatch", {
        sourceId: channel.sourceId,
      });
      refused++;
      continue;
    }
    if (note.lifecycleEvent) {
      // Removed or expiring subscriptions fall back to the poll; a resync covers missed changes.
      app.log.warn("graph lifecycle notification", {
        sourceId: channel.sourceId,
        lifecycleEvent: note.lifecycleEvent,
      });
    }
    if (await app.requestSync(pushOf(channel))) queued++;
  }
  if (refused > 0 && refused === value.length) {
    throw new HttpRefusal(401, "bad_client_state", "no notification could be authenticated");
  }
  return json(202, { ok: true, queued });
}

/** Generic: signed like service events, with the source's own secret. */
async function generic(req: HttpRequest, app: App): Promise<HttpResult> {
  const sourceId = req.params.sourceId ?? "";
  const channel = await channelOrRefuse(app, sourceId);
  if (!channel.secret) throw new HttpRefusal(403, "no_secret", "this source has no hook secret");
  verifyV0(
    channel.secret,
    {
      rawBody: req.rawBody,
      timestamp: header(req.headers, "x-statuspilot-timestamp"),
      signature: header(req.headers, "x-statuspilot-signature"),
    },
    app.clock.now(),
  );
  const queued = await app.requestSync(pushOf(channel));
  return json(200, { ok: true, queued });
}

/** POST /hooks/google, /hooks/graph, /hooks/generic/{sourceId}: each push enqueues a re-sync. */
export const handler = httpHandler(async (req, app) => {
  if (req.path.endsWith("/hooks/google")) return google(req, app);
  if (req.path.endsWith("/hooks/graph")) return graph(req, app);
  if (req.params.sourceId !== undefined) return generic(req, app);
  return json(404, { error: "not_found", message: `no calendar hook at ${req.path}` });
});
