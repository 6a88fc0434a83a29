import * as z from "zod";
import { channelIdSchema } from "#lib/core/ids";
import { channelToken, channelTokenMatches } from "#lib/http/channel-token";
import { WebhookError } from "#lib/http/errors";
import { jsonReply, parseJsonInput, textReply, type WebhookRequest } from "#lib/http/request";
import type { GraphHttpOptions } from "./graph-http";
import { graphOAuth } from "./graph-oauth";
import { clientStateOf, graphPushLifecycle } from "./graph-push";
import { type GraphReadRequest, readGraphWindow } from "./graph-read";
import { icsProvider } from "./ics";
import type {
  ApiDeps,
  ApiReadDeps,
  ApiSource,
  ApiWindowFetch,
  CalendarOAuth,
  CalendarProvider,
  PushChannel,
  PushDeps,
  PushHook,
  PushLifecycle,
  PushLifecycleAction,
  PushVerdict,
  SyncWindow,
} from "./provider";

/**
 * Microsoft Graph (Outlook): a subscription notifies POST /hooks/graph, and each authenticated
 * subscription re-syncs its source.
 *
 * Reading: a source connected through OAuth is read with Graph (`readApi`: calendarView delta,
 * graph-read.ts; mapping, graph-map.ts). An Outlook source given by its secret ICS address is
 * still read as a feed (`fetchWindow`). `graphApi` binds the read, the subscriptions and the
 * OAuth client to one Graph base, for code outside the app's connect flow (tests, tools).
 */
export const graphProvider = {
  // The ICS provider's read and address rule, under this kind, for address-only sources.
  ...icsProvider,
  kind: "graph",
  readApi: readGraphApi,
} as const satisfies CalendarProvider;

/** A connected source's read (graph-read.ts), at the configured Graph base (`apiBaseUrl`). */
export function readGraphApi(
  source: ApiSource,
  window: SyncWindow,
  deps: ApiReadDeps,
): Promise<ApiWindowFetch> {
  return readGraphWindow(
    {
      window,
      tz: source.tz,
      emails: source.emails,
      ...(source.cursor !== undefined ? { cursor: source.cursor } : {}),
      ...(source.hash !== undefined ? { hash: source.hash } : {}),
      ...(source.refresh === true ? { refresh: true } : {}),
    },
    deps,
    { graphBaseUrl: deps.apiBaseUrl },
  );
}

/** Graph subscriptions at the configured Graph base (connect-providers' `lifecycle`). */
export const graphSubscriptions = (graphBaseUrl: string): PushLifecycle =>
  graphPushLifecycle({ graphBaseUrl });

/** What a connected Outlook source uses: Graph reads, subscriptions and the OAuth client. */
export interface GraphApi {
  readWindow(req: GraphReadRequest, deps: ApiDeps): Promise<ApiWindowFetch>;
  push: PushLifecycle;
  oauth: CalendarOAuth;
}

/** The Graph API bound to `graphBaseUrl` (config `providers.microsoft.graphBaseUrl`). */
export function graphApi(opts: GraphHttpOptions): GraphApi {
  return {
    readWindow: (req, deps) => readGraphWindow(req, deps, opts),
    push: graphPushLifecycle(opts),
    oauth: graphOAuth,
  };
}

/**
 * The `clientState` a subscription of `channelId` carries: the channel id and its derived token
 * (graph-push.ts builds it from the push request), so a notification authenticates from its own
 * fields, before any read, and the channel is bound under our own unguessable id.
 */
export const graphClientState = (signingSecret: string, channelId: string): string =>
  clientStateOf({ channelId, token: channelToken(signingSecret, channelId) });

/**
 * The channel a notification's clientState authenticates, or undefined: our composite
 * `<channelId>.<token>` (graphClientState), or the earlier form, the token of the subscription id.
 */
export function authenticatedChannelId(
  signingSecret: string,
  subscriptionId: string,
  clientState: string | undefined,
): string | undefined {
  if (clientState === undefined) return undefined;
  const dot = clientState.lastIndexOf(".");
  if (dot > 0) {
    const channelId = clientState.slice(0, dot);
    if (channelTokenMatches(signingSecret, channelId, clientState.slice(dot + 1))) return channelId;
  }
  return channelTokenMatches(signingSecret, subscriptionId, clientState)
    ? subscriptionId
    : undefined;
}

/** What each lifecycle event asks of the subscription's owner (every one also re-syncs). */
export const GRAPH_LIFECYCLE_ACTIONS = {
  reauthorizationRequired: "renew",
  subscriptionRemoved: "recreate",
  missed: "resync",
} as const satisfies Record<string, PushLifecycleAction["action"]>;

/** Its push hook (the registry routes pushes to it). */
export const graphPushHook = {
  routeKey: "POST /hooks/graph",
  verifyPush: verifyGraphNotification,
} as const satisfies PushHook;

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

/** Answers alike whether the subscriptions exist or not. */
const GRAPH_REFUSAL = "no notification could be authenticated";

/** Built on first use: top-level schema calls would stay in bundles that never see a push. */
const graphNotificationSchema = () =>
  z
    .object({
      subscriptionId: channelIdSchema,
      clientState: z.string().optional(),
      changeType: z.string().optional(),
      lifecycleEvent: z
        .enum(["reauthorizationRequired", "subscriptionRemoved", "missed"])
        .optional(),
    })
    .loose();
let graphBodySchema:
  | z.ZodObject<{ value: z.ZodArray<ReturnType<typeof graphNotificationSchema>> }>
  | undefined;
const graphBody = () =>
  (graphBodySchema ??= z.object({ value: z.array(graphNotificationSchema()).max(1000) }));
type GraphNotification = z.infer<ReturnType<typeof graphNotificationSchema>>;

/**
 * What a Graph validation token looks like. Graph's docs call it opaque; what Graph sends is
 * "Validation: Testing client application reachability for subscription Request-Id: <GUID>",
 * and OneDrive's is a random string. Letters, digits, spaces and `-_.:=+/` (1 to 1,024 of them)
 * cover both and base64. Markup, quotes and control characters never occur in one, so a "token"
 * that carries them is refused instead of reflected back to whoever crafted the link.
 */
const GRAPH_VALIDATION_TOKEN = /^[A-Za-z0-9 _.:=+/-]{1,1024}$/;

/**
 * Echo the validation token (of the notification URL and of the lifecycle URL alike) if it looks
 * like one (`GRAPH_VALIDATION_TOKEN`; anything else is a 400); otherwise
 * each notification's clientState must authenticate a channel (authenticatedChannelId).
 * Notifications are authenticated before anything is read, then grouped by channel, so each
 * authenticated channel costs at most one read and one re-sync, and an unauthenticated batch
 * costs no read or decrypt at all. Lifecycle notifications name what the owner must do
 * (`lifecycle` in the verdict: reauthorizationRequired → renew, subscriptionRemoved → recreate,
 * missed → resync); every authenticated channel is re-synced now as well.
 */
async function verifyGraphNotification<C extends PushChannel>(
  req: WebhookRequest,
  deps: PushDeps<C>,
): Promise<PushVerdict<C>> {
  const validationToken = req.query.validationToken;
  if (validationToken !== undefined) {
    if (!GRAPH_VALIDATION_TOKEN.test(validationToken)) {
      throw new WebhookError(
        "bad_request",
        "validationToken is not a Graph validation token: 1 to 1024 letters, digits, spaces or -_.:=+/",
      );
    }
    return { kind: "answer", reply: textReply(200, validationToken) };
  }
  const { value } = parseJsonInput(graphBody(), req.rawBody);
  const skipped = { unknownSubscription: 0, badClientState: 0, notLookedUp: 0 };
  const signingSecret = value.length > 0 ? await deps.signingSecret() : "";
  const bySubscription = new Map<string, GraphNotification[]>();
  for (const note of value) {
    const channelId = authenticatedChannelId(signingSecret, note.subscriptionId, note.clientState);
    if (channelId === undefined) {
      skipped.badClientState++;
      continue;
    }
    const group = bySubscription.get(channelId);
    if (group) group.push(note);
    else bySubscription.set(channelId, [note]);
  }
  let failures = 0;
  let lookups = 0;
  let authenticated = 0;
  const channels: C[] = [];
  const lifecycle: PushLifecycleAction<C>[] = [];
  for (const [channelId, notes] of bySubscription) {
    if (failures >= MAX_GRAPH_FAILURES || lookups >= MAX_GRAPH_LOOKUPS) {
      skipped.notLookedUp += notes.length;
      continue;
    }
    lookups++;
    const channel = await deps.findChannel(channelId);
    if (!channel) {
      skipped.unknownSubscription += notes.length;
      failures++;
      continue;
    }
    authenticated += notes.length;
    const lifecycleEvents = new Set(notes.flatMap((n) => n.lifecycleEvent ?? []));
    for (const lifecycleEvent of lifecycleEvents) {
      const action = GRAPH_LIFECYCLE_ACTIONS[lifecycleEvent];
      deps.log.warn("graph lifecycle notification", {
        team: channel.team,
        user: channel.user,
        sourceId: channel.sourceId,
        lifecycleEvent,
        action,
        needsRenewal: lifecycleEvent !== "missed",
      });
      const subscriptionId = notes.find((n) => n.lifecycleEvent === lifecycleEvent)?.subscriptionId;
      lifecycle.push({ channel, action, ...(subscriptionId ? { subscriptionId } : {}) });
    }
    channels.push(channel);
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
  return {
    kind: "accepted",
    channels,
    ...(lifecycle.length > 0 ? { lifecycle } : {}),
    reply: (queued) => jsonReply(202, { ok: true, queued: queued.filter(Boolean).length }),
  };
}
