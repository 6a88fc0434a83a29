import { channelToken } from "#lib/http/channel-token";
import { WebhookError } from "#lib/http/errors";
import { jsonReply, type WebhookRequest } from "#lib/http/request";
import { BAD_SIGNATURE, header, verifyV0 } from "#lib/http/signature";
import { icsProvider } from "./ics";
import type { CalendarProvider, PushChannel, PushDeps, PushHook, PushVerdict } from "./provider";
import { requireChannelId } from "./push-channel";

/**
 * Generic: any calendar system (or script) that can sign a POST pushes to
 * /hooks/generic/{sourceId}; the source is read through its ICS address.
 */
export const genericProvider = {
  // The ICS provider's read and address rule, under this kind.
  ...icsProvider,
  kind: "generic",
} as const satisfies CalendarProvider;

/** Its push hook (the registry routes pushes to it). */
export const genericPushHook = {
  routeKey: "POST /hooks/generic/{sourceId}",
  verifyPush: verifyGenericPush,
} as const satisfies PushHook;

/**
 * Signed like service events (v0 HMAC over timestamp and body), keyed by the channel's derived
 * token, so the signature is checked before the channel is read. A valid signature for an
 * unbound id answers like a bad one.
 */
async function verifyGenericPush<C extends PushChannel>(
  req: WebhookRequest,
  deps: PushDeps<C>,
): Promise<PushVerdict<C>> {
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
  const channel = await deps.findChannel(channelId);
  if (!channel) throw new WebhookError("bad_signature", BAD_SIGNATURE);
  return {
    kind: "accepted",
    channels: [channel],
    reply: (queued) => jsonReply(200, { ok: true, queued: queued[0] ?? false }),
  };
}
