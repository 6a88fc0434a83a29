import type { UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import { updatePush } from "./upkeep";

/**
 * A push lifecycle notification's request, recorded on the source's channel for its next
 * upkeep (plan.ts): Graph's `reauthorizationRequired` asks for a renewal now, its
 * `subscriptionRemoved` for a new subscription. A notification about another channel than the
 * source's current one (an older subscription, already replaced) changes nothing.
 */
export async function requestPushWork(
  ctx: UseCaseContext,
  key: UserKey,
  sourceId: string,
  action: "renew" | "recreate",
  channelId?: string,
): Promise<boolean> {
  const user = await ctx.store.getUser(key);
  const push = user?.sources.find((s) => s.id === sourceId)?.push;
  if (push === undefined || (channelId !== undefined && channelId !== push.channelId)) return false;
  // A recreate outranks a renew asked before it.
  await updatePush(ctx, key, sourceId, (p) => ({
    ...p,
    requested: p.requested === "recreate" ? "recreate" : action,
  }));
  ctx.log.info("push channel work requested", { ...key, sourceId, action });
  return true;
}
