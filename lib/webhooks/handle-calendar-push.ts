import type { SyncMessage } from "#lib/app/contracts";
import type { PushHook } from "#lib/calendar/providers/provider";
import { pushHookFor, pushHookOf, pushRoutes } from "#lib/calendar/providers/registry";
import { WebhookError } from "#lib/http/errors";
import type { WebhookReply, WebhookRequest } from "#lib/http/request";
import type { ChannelBinding, ChannelKind, WebhookDeps } from "./deps";

export { MAX_GRAPH_FAILURES, MAX_GRAPH_LOOKUPS } from "#lib/calendar/providers/graph";

/** Only the source's identity goes on the queue: never its secret. */
const pushOf = (channel: ChannelBinding): SyncMessage => ({
  team: channel.team,
  user: channel.user,
  sourceId: channel.sourceId,
  reason: "push",
});

/** The binding for an authenticated `channelId` as seen by the `kind` hook, or undefined. */
async function lookupChannel(
  deps: WebhookDeps,
  channelId: string,
  kind: ChannelKind,
): Promise<ChannelBinding | undefined> {
  // The push was authenticated by its channel token (derived from the id) before this lookup,
  // and no hook uses the stored secret: left sealed, so a push costs no KMS call.
  const channel = await deps.admin.findChannel(channelId, { openSecret: false });
  // A channel bound for another hook is not this hook's channel.
  if (channel?.kind !== undefined && channel.kind !== kind) return undefined;
  return channel;
}

/**
 * One push through the `kind` provider's hook: the hook authenticates it (before any read) and
 * names its channels, each channel's source is queued for a re-sync, and the hook answers.
 */
async function receivePush(
  kind: ChannelKind,
  hook: PushHook,
  req: WebhookRequest,
  deps: WebhookDeps,
): Promise<WebhookReply> {
  const verdict = await hook.verifyPush<ChannelBinding>(req, {
    clock: deps.clock,
    log: deps.log,
    signingSecret: () => deps.signingSecret(),
    findChannel: (channelId) => lookupChannel(deps, channelId, kind),
  });
  if (verdict.kind === "answer") return verdict.reply;
  const queued: boolean[] = [];
  for (const channel of verdict.channels) queued.push(await deps.requestSync(pushOf(channel)));
  // Lifecycle pushes (Graph): an upkeep renews or recreates the channel now, on the sync queue
  // (lib/app/push/schedule.ts; the hook writes nothing); `resync` is the sync just queued.
  for (const { channel, action, subscriptionId } of verdict.lifecycle ?? []) {
    if (action === "resync") continue;
    await deps.requestSync({
      ...pushOf(channel),
      reason: "upkeep",
      upkeep: {
        request: action,
        ...(subscriptionId !== undefined ? { channelId: subscriptionId } : {}),
      },
    });
  }
  return verdict.reply(queued);
}

/** POST /hooks/google (lib/calendar/providers/google.ts). */
export const handleGooglePush = (req: WebhookRequest, deps: WebhookDeps) =>
  receivePush("google", pushHookOf("google"), req, deps);

/** POST /hooks/graph (lib/calendar/providers/graph.ts). */
export const handleGraphNotification = (req: WebhookRequest, deps: WebhookDeps) =>
  receivePush("graph", pushHookOf("graph"), req, deps);

/** POST /hooks/generic/{sourceId} (lib/calendar/providers/generic.ts). */
export const handleGenericHook = (req: WebhookRequest, deps: WebhookDeps) =>
  receivePush("generic", pushHookOf("generic"), req, deps);

/** The hook each calendar route serves, by API Gateway route key (functions/routes.ts). */
export const CALENDAR_HOOK_ROUTES: Readonly<Record<string, ChannelKind>> = pushRoutes();

/** A calendar push and the route API Gateway matched it to. */
export interface CalendarPushRequest extends WebhookRequest {
  routeKey: string;
}

/**
 * Every calendar push route: each push enqueues a re-sync. Dispatched on the matched route (the
 * registry's push hooks by route key): the decoded path of `/hooks/generic/x%2Fhooks%2Fgraph`
 * ends like the Graph hook's, but it is the generic hook with the channel id `x/hooks/graph`.
 */
export async function handleCalendarPush(
  req: CalendarPushRequest,
  deps: WebhookDeps,
): Promise<WebhookReply> {
  const route = pushHookFor(req.routeKey);
  if (route === undefined) throw new WebhookError("not_found", "no calendar hook on this route");
  return receivePush(route.kind, route.hook, req, deps);
}
