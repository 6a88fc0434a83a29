// lib/app/push: keeping push channels alive: when each needs work, creating, renewing and stopping
// them, and their bindings.
import { ProviderError } from "#lib/calendar/providers/errors";
import type { SourcePush, SourceRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { noUpkeepSchedule, type UpkeepSchedule } from "#lib/core/upkeep-schedule";
import { channelToken } from "#lib/http/channel-token";
import type { ConnectAccess } from "../accounts/access";
import { connectProviderOfKind, requireSettings } from "../accounts/providers";
import type { Config } from "../config";
import type { UseCaseContext } from "../context";
import { UnknownUserError } from "../errors";
import { mutateUser } from "../status/records";
import { putChannel, retireChannel } from "./channels";
import { DEFAULT_PUSH_TTL_MS, pushStep } from "./plan";

/**
 * Keeps a connected source's push channel alive (plan.ts decides what, schedule.ts
 * when): creates it, renews it (Google: a new channel first, then channels.stop of the old one
 * once the record names the new; Graph: PATCH), recreates a lapsed one, and stops it when the
 * source goes. Only the channel the source's record names stays open: a new channel whose
 * record could not be written, or whose source went meanwhile, is stopped again; so is one whose
 * record no longer names the channel this upkeep started from (another worker renewed it after
 * this one's claim ran out: plan.ts upkeepLeaseMs), which keeps two upkeeps at once from leaving
 * two channels open. Each channel id is
 * new and unguessable, and its token is the HMAC channel token, so the hook authenticates a push
 * before any read. A binding no longer in use is retired: after CHANNEL_RETIRE_GRACE_MS when the
 * channel it named may still have pushes in flight (a renewal, a recreate), at once otherwise.
 */

/** How long a replaced channel's binding still authenticates its pushes already on the way. */
export const CHANNEL_RETIRE_GRACE_MS = 10 * 60_000;

export interface PushUpkeepDeps {
  ctx: UseCaseContext;
  config: Config;
  access: ConnectAccess;
  signingSecret(): Promise<string>;
  newChannelId(): string;
  /** The lifetime asked for (Google may grant less); short in soaks. */
  ttlMs?: number;
  /** When each source's next upkeep runs (lib/app/push/schedule.ts); none without it. */
  schedule?: UpkeepSchedule;
}

export type UpkeepOutcome =
  | { kind: "none" }
  | {
      kind: "created" | "renewed" | "recreated";
      channelId: string;
      expiresAt: number;
      /** The source's push record as now stored. */
      push: SourcePush;
    }
  | { kind: "failed"; code: string }
  /** The source went while its channel was made: that channel was stopped again. */
  | { kind: "gone" }
  /**
   * Another upkeep changed the source's channel while this one made its own, or failed to (this
   * one's claim had run out): the record keeps the other's, and a channel made here was stopped
   * again.
   */
  | { kind: "superseded" };

/** What the channel needs now, done. Failures are recorded and retried at the next upkeep. */
export async function upkeepPush(
  deps: PushUpkeepDeps,
  key: UserKey,
  source: SourceRecord,
): Promise<UpkeepOutcome> {
  const { ctx } = deps;
  if (source.refreshTokenSealed === undefined || source.reconnectSince !== undefined) {
    return { kind: "none" };
  }
  const now = ctx.clock.now();
  const step = pushStep(source.push, now);
  if (step.kind === "none") return { kind: "none" };
  try {
    const push = await openChannel(deps, key, source, step.kind === "renew");
    if (push === "gone" || push === "superseded") {
      ctx.log.info(
        `push channel upkeep found its ${push === "gone" ? "source gone" : "channel changed"}`,
        {
          ...key,
          sourceId: source.id,
        },
      );
      return { kind: push };
    }
    const kind =
      step.kind === "create" ? "created" : step.kind === "renew" ? "renewed" : "recreated";
    ctx.log.info("push channel upkeep", {
      ...key,
      sourceId: source.id,
      step: kind,
      ...(step.kind === "recreate" ? { lapse: step.reason } : {}),
      expiresAt: push.expiresAt,
    });
    return { kind, channelId: push.channelId, expiresAt: push.expiresAt, push };
  } catch (error: unknown) {
    const code = error instanceof ProviderError ? error.code : "error";
    if (error instanceof ProviderError && error.code === "invalid_grant") {
      await deps.access.flagReconnect(key, source.id);
    } else if (source.push !== undefined) {
      // Counted against the channel it was about; when another upkeep made a new one meanwhile
      // (this one's claim had run out), that one's record and schedule stand.
      const about = source.push;
      let counted = false;
      await updatePush(ctx, key, source.id, (p) => {
        counted = sameGrant(p, about);
        return counted ? { ...p, failures: (p.failures ?? 0) + 1 } : p;
      });
      if (!counted) return { kind: "superseded" };
    }
    ctx.log.warn("push channel upkeep failed", { ...key, sourceId: source.id, code });
    return { kind: "failed", code };
  }
}

/**
 * A new channel for the source, bound and recorded; with `renew` the old one is renewed (Graph)
 * or replaced (Google). The binding in use afterwards is the new channel id's, unless the
 * provider kept the old subscription (Graph's PATCH: its clientState, so its binding, stays), in
 * which case the new binding, never used, is retired at once. A replaced channel is stopped only
 * once the record names the new one; a new channel the record does not name (its write failed,
 * the source went meanwhile: "gone", or its record names another channel than `source` did:
 * "superseded") is stopped and its binding retired at once.
 */
async function openChannel(
  deps: PushUpkeepDeps,
  key: UserKey,
  source: SourceRecord,
  renew: boolean,
): Promise<SourcePush | "gone" | "superseded"> {
  const { ctx } = deps;
  const provider = connectProviderOfKind(source.kind);
  if (provider === undefined) throw new Error(`no push for sources of kind ${source.kind}`);
  const settings = requireSettings(provider, deps.config);
  const base = deps.config.PUBLIC_BASE_URL;
  if (base === undefined) throw new Error("PUBLIC_BASE_URL is needed to receive pushes");
  const lifecycle = provider.lifecycle(settings.apiBaseUrl);
  const api = deps.access.apiDeps(key, source);
  const channelId = deps.newChannelId();
  const request = {
    notificationUrl: new URL(provider.hookPath, base).href,
    token: channelToken(await deps.signingSecret(), channelId),
    channelId,
    ttlMs: deps.ttlMs ?? DEFAULT_PUSH_TTL_MS,
  };
  // Bound before it exists, so its opening `sync` message (and any first push) is recognised.
  await putChannel(ctx, channelId, { key, sourceId: source.id, kind: provider.kind });
  const old = source.push;
  const created = await (renew && old !== undefined
    ? lifecycle.renew(old, request, api)
    : lifecycle.subscribe(request, api)
  ).catch(async (error: unknown) => {
    // No channel came of it: its binding must not authenticate anything.
    await retireChannel(ctx, channelId, ctx.clock.now()).catch(() => undefined);
    throw error;
  });
  const createdAt = ctx.clock.now();
  const kept = old !== undefined && created.channelId === old.channelId;
  const bindingId = kept ? bindingOf(old) : channelId;
  const push: SourcePush = {
    channelId: created.channelId,
    ...(created.resourceId !== undefined ? { resourceId: created.resourceId } : {}),
    ...(bindingId !== created.channelId ? { bindingId } : {}),
    createdAt,
    expiresAt: created.expiresAt,
  };
  /** Nothing names the new channel: no push of it is wanted. */
  const abandon = async (stop: boolean) => {
    if (stop) await lifecycle.unsubscribe(created, api).catch(() => undefined);
    await retireChannel(ctx, channelId, ctx.clock.now()).catch(() => undefined);
  };
  const recorded = await setPush(ctx, key, source.id, old, push).catch(async (error: unknown) => {
    // The record still names the old channel (kept by a PATCH, it is the same one).
    await abandon(!kept);
    throw error;
  });
  if (recorded !== "written") {
    // A subscription kept by a PATCH is the one the record names still: it stays open.
    await abandon(recorded === "gone" || !kept);
    return recorded;
  }
  if (kept) await retireChannel(ctx, channelId, createdAt);
  else if (old !== undefined) {
    // Replaced (a Google renewal, a recreate, a Graph renewal that found it gone): a channel
    // still alive at the provider is stopped, never waited on; its pushes already on the way (Google sends until channels.stop) are
    // still taken for the grace.
    await lifecycle.unsubscribe(old, api).catch(() => undefined);
    await retireBinding(ctx, key, source, old, createdAt + CHANNEL_RETIRE_GRACE_MS, channelId);
  }
  return push;
}

/** The channel id whose binding authenticates the channel's pushes. */
export const bindingOf = (push: SourcePush): string => push.bindingId ?? push.channelId;

/**
 * Retires, from `at` on, the binding that authenticates `push`'s pushes. A Graph record written
 * by the previous release names Graph's subscription id and no bindingId, while its binding is
 * under our own channel id (its clientState's), which the record does not name: for such a
 * record the source's bindings are found through the user's channel pointers and all retired,
 * but `keep` (the binding just made for its successor). Since then a Graph record always names
 * its binding, so other records cost no extra read.
 */
export async function retireBinding(
  ctx: UseCaseContext,
  key: UserKey,
  source: SourceRecord,
  push: SourcePush,
  at: number,
  keep?: string,
): Promise<void> {
  if (source.kind !== "graph" || push.bindingId !== undefined) {
    await retireChannel(ctx, bindingOf(push), at);
    return;
  }
  for (const channel of await ctx.store.channelsOf(key)) {
    if (channel.sourceId === source.id && channel.channelId !== keep) {
      await retireChannel(ctx, channel.channelId, at);
    }
  }
}

/** Stops the source's channel (disconnect, calendar removed); a failure is logged, not thrown. */
export async function stopPush(
  deps: PushUpkeepDeps,
  key: UserKey,
  source: SourceRecord,
): Promise<void> {
  const push = source.push;
  const provider = connectProviderOfKind(source.kind);
  if (provider === undefined) return;
  await (deps.schedule ?? noUpkeepSchedule).remove(key, source.id);
  if (push === undefined) return;
  // No push of a stopped channel is wanted any more.
  await retireBinding(deps.ctx, key, source, push, deps.ctx.clock.now());
  try {
    const settings = requireSettings(provider, deps.config);
    await provider
      .lifecycle(settings.apiBaseUrl)
      .unsubscribe(push, deps.access.apiDeps(key, source));
  } catch (error: unknown) {
    deps.ctx.log.warn("push channel stop failed", {
      ...key,
      sourceId: source.id,
      code: error instanceof ProviderError ? error.code : "error",
    });
  }
}

/** Changes the source's push record; a source without one is left as it is. */
export async function updatePush(
  ctx: UseCaseContext,
  key: UserKey,
  sourceId: string,
  change: (push: SourcePush) => SourcePush,
): Promise<void> {
  await mutateUser(ctx, key, (u) => ({
    ...u,
    sources: u.sources.map((s) =>
      s.id === sourceId && s.push !== undefined ? { ...s, push: change(s.push) } : s,
    ),
  }));
}

/**
 * The same grant of a channel: the same channel made (or renewed) at the same instant, or no
 * channel at all. Other fields (failures, requests, silence) change without a new grant.
 */
const sameGrant = (a: SourcePush | undefined, b: SourcePush | undefined): boolean =>
  a === undefined || b === undefined
    ? a === b
    : a.channelId === b.channelId && a.createdAt === b.createdAt;

/**
 * Sets the source's push record (a new channel) if it still holds the grant `expected` (the one
 * the upkeep started from). Writes nothing and answers "gone" when the user or the source is
 * gone (removed while the channel was being made), "superseded" when another upkeep recorded a
 * channel meanwhile.
 */
async function setPush(
  ctx: UseCaseContext,
  key: UserKey,
  sourceId: string,
  expected: SourcePush | undefined,
  push: SourcePush,
): Promise<"written" | "gone" | "superseded"> {
  let found: "gone" | "superseded" = "gone";
  try {
    const written = await mutateUser(ctx, key, (u) => {
      const source = u.sources.find((s) => s.id === sourceId);
      found = source === undefined ? "gone" : "superseded";
      if (source === undefined || !sameGrant(source.push, expected)) return undefined;
      return { ...u, sources: u.sources.map((s) => (s.id === sourceId ? { ...s, push } : s)) };
    });
    return written ? "written" : found;
  } catch (error: unknown) {
    if (error instanceof UnknownUserError) return "gone";
    throw error;
  }
}
