import * as z from "zod";
import { channelIdSchema } from "../../core/ids";
import { channelTokenMatches } from "../../http/channel-token";
import { WebhookError } from "../../http/errors";
import { jsonReply, parseJsonInput, textReply, type WebhookRequest } from "../../http/request";
import { icsProvider } from "./ics";
import type { CalendarProvider, PushChannel, PushDeps, PushHook, PushVerdict } from "./provider";

/**
 * Microsoft Graph (Outlook): a subscription notifies POST /hooks/graph, and each authenticated
 * subscription re-syncs its source.
 *
 * Reading: an Outlook source is still read through its secret ICS address. The Graph read
 * (issue 14: `/me/calendarView` or its delta, OAuth) replaces `fetchWindow` and
 * `sourceAddressProblem` here.
 */
export const graphProvider = {
  // The ICS provider's read and address rule, under this kind.
  ...icsProvider,
  kind: "graph",
} as const satisfies CalendarProvider;

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
 * Echo the validation token; otherwise each notification names a subscription, and its
 * clientState must be the subscription's derived token. Notifications are authenticated before
 * anything is read, then grouped by subscription, so each authenticated subscription costs at
 * most one read and one re-sync, and an unauthenticated batch costs no read or decrypt at all.
 * Lifecycle notifications (reauthorizationRequired, subscriptionRemoved) mean the
 * subscription must be renewed by whoever created it: they are logged as `needsRenewal`, and
 * the source is re-synced now; until renewal the 15-minute poll keeps the calendar current.
 */
async function verifyGraphNotification<C extends PushChannel>(
  req: WebhookRequest,
  deps: PushDeps<C>,
): Promise<PushVerdict<C>> {
  const validationToken = req.query.validationToken;
  if (validationToken !== undefined) {
    return { kind: "answer", reply: textReply(200, validationToken) };
  }
  const { value } = parseJsonInput(graphBody(), req.rawBody);
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
  const channels: C[] = [];
  for (const [subscriptionId, notes] of bySubscription) {
    if (failures >= MAX_GRAPH_FAILURES || lookups >= MAX_GRAPH_LOOKUPS) {
      skipped.notLookedUp += notes.length;
      continue;
    }
    lookups++;
    const channel = await deps.findChannel(subscriptionId);
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
    reply: (queued) => jsonReply(202, { ok: true, queued: queued.filter(Boolean).length }),
  };
}
