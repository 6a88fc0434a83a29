import { isGoogleHandshake } from "../../http/calendar-push";
import { channelTokenMatches } from "../../http/channel-token";
import { WebhookError } from "../../http/errors";
import { jsonReply, type WebhookRequest } from "../../http/request";
import { header } from "../../http/signature";
import { icsProvider } from "./ics";
import type { CalendarProvider, PushChannel, PushDeps, PushHook, PushVerdict } from "./provider";
import { requireChannelId } from "./push-channel";

/**
 * Google Calendar: a watch channel pushes to POST /hooks/google, and each push re-syncs the
 * channel's source.
 *
 * Reading: a Google source is still read through its secret ICS address. The Calendar API read
 * (issue 14: `events.list` with `singleEvents`, sync tokens, OAuth) replaces `fetchWindow` and
 * `sourceAddressProblem` here.
 */
export const googleProvider = {
  // The ICS provider's read and address rule, under this kind.
  ...icsProvider,
  kind: "google",
} as const satisfies CalendarProvider;

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
