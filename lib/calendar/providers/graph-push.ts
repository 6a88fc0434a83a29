import { ProviderError } from "./errors";
import { type GraphHttpOptions, graphCall } from "./graph-http";
import type { ApiDeps, PushLifecycle, PushRequest, PushSubscription } from "./provider";

/**
 * Graph subscriptions on the signed-in user's events: created with `POST /subscriptions`
 * (`me/events`, `created,updated,deleted`, our notification and lifecycle URLs), renewed with
 * `PATCH /subscriptions/{id}`, ended with `DELETE`. Graph sends the validation handshake to our
 * hook before it answers the POST.
 *
 * The `clientState` is `<channelId>.<token>`: Graph assigns the subscription id only after the
 * handshake, so the request's token (the channel id's derived token) cannot be recognised by
 * Graph's id; carrying our channel id with it lets the hook authenticate a notification from
 * its own fields, before any read (graph.ts, authenticatedChannelId).
 */

/** The documented maximum lifetime of a subscription on Outlook events (minutes). */
export const GRAPH_MAX_SUBSCRIPTION_MINUTES = 10_080;
/** What we ask for at most: ten minutes under the maximum, so clock skew cannot make it too long. */
export const GRAPH_SUBSCRIPTION_MAX_MS = (GRAPH_MAX_SUBSCRIPTION_MINUTES - 10) * 60_000;

const subscriptionAnswer = (body: unknown): PushSubscription => {
  const b = body as { id?: unknown; expirationDateTime?: unknown } | undefined;
  const expiresAt =
    typeof b?.expirationDateTime === "string" ? Date.parse(b.expirationDateTime) : Number.NaN;
  if (typeof b?.id !== "string" || !Number.isFinite(expiresAt)) {
    throw new ProviderError(
      "upstream_status",
      "Graph's subscription answer had no id or expirationDateTime",
    );
  }
  return { channelId: b.id, expiresAt };
};

/** Graph's limit on clientState. */
export const GRAPH_CLIENT_STATE_MAX = 128;

/** The clientState of a subscription for the push request's channel. */
export function clientStateOf(req: Pick<PushRequest, "channelId" | "token">): string {
  const state = `${req.channelId}.${req.token}`;
  if (state.length > GRAPH_CLIENT_STATE_MAX) {
    throw new RangeError(`a Graph clientState is at most ${GRAPH_CLIENT_STATE_MAX} characters`);
  }
  return state;
}

const expiration = (req: PushRequest, deps: ApiDeps): string =>
  new Date(deps.clock.now() + Math.min(req.ttlMs, GRAPH_SUBSCRIPTION_MAX_MS)).toISOString();

export function graphPushLifecycle(opts: GraphHttpOptions): PushLifecycle {
  const base = opts.graphBaseUrl.replace(/\/$/, "");
  const at = (id: string) => `${base}/subscriptions/${encodeURIComponent(id)}`;
  async function subscribe(req: PushRequest, deps: ApiDeps): Promise<PushSubscription> {
    const body = await graphCall(
      `${base}/subscriptions`,
      {
        method: "POST",
        body: {
          changeType: "created,updated,deleted",
          notificationUrl: req.notificationUrl,
          // Lifecycle notifications come to the same hook unless another address is given.
          lifecycleNotificationUrl: req.lifecycleUrl ?? req.notificationUrl,
          resource: "me/events",
          expirationDateTime: expiration(req, deps),
          clientState: clientStateOf(req),
        },
      },
      deps,
      opts,
    );
    return subscriptionAnswer(body);
  }
  return {
    subscribe,
    /** A subscription Graph no longer has (404: expired or removed) is created anew. */
    async renew(current, req, deps) {
      try {
        const body = await graphCall(
          at(current.channelId),
          { method: "PATCH", body: { expirationDateTime: expiration(req, deps) } },
          deps,
          opts,
        );
        return subscriptionAnswer(body);
      } catch (error: unknown) {
        if (error instanceof ProviderError && error.status === 404) return subscribe(req, deps);
        throw error;
      }
    },
    /** Already gone (404) counts as ended. */
    async unsubscribe(current, deps) {
      try {
        await graphCall(at(current.channelId), { method: "DELETE" }, deps, opts);
      } catch (error: unknown) {
        if (!(error instanceof ProviderError && error.status === 404)) throw error;
      }
    },
  };
}
