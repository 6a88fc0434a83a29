/** The push channels' bindings: which source a channel id was opened for, until it retires. */
import { VersionConflict } from "#lib/core/ports";
import type { UseCaseContext } from "../context";
import type { ChannelBindingInput, ChannelLookup, ChannelView } from "../contracts";
import { retryOnConflict } from "../version-retry";

/** Binds a Google channel / Graph subscription / generic hook id to a user's source. */
export async function putChannel(
  ctx: UseCaseContext,
  channelId: string,
  binding: ChannelBindingInput,
): Promise<void> {
  const secretSealed =
    binding.secret === undefined
      ? undefined
      : await ctx.tokens.seal(binding.secret, { ...binding.key, field: "channel_secret" });
  const existing = await ctx.store.getChannel(channelId);
  const kind = binding.kind ?? existing?.kind;
  await ctx.store.putChannel(
    {
      channelId,
      key: binding.key,
      sourceId: binding.sourceId,
      ...(secretSealed !== undefined ? { secretSealed } : {}),
      ...(kind !== undefined ? { kind } : {}),
      version: existing?.version ?? 0,
    },
    existing?.version,
  );
}

/**
 * Retires a channel's binding: from `at` on it authenticates nothing (TTL deletes it later).
 * A binding already retiring keeps the earlier instant; an unknown channel is left alone.
 */
export async function retireChannel(
  ctx: UseCaseContext,
  channelId: string,
  at: number,
): Promise<void> {
  await retryOnConflict(
    ctx.options.maxConflictRetries,
    async () => {
      const c = await ctx.store.getChannel(channelId);
      if (c === undefined || (c.retiresAt !== undefined && c.retiresAt <= at)) return;
      await ctx.store.putChannel({ ...c, retiresAt: at }, c.version);
    },
    () => {
      throw new VersionConflict(`CHANNEL#${channelId}`, undefined);
    },
  );
}

/** The channel's binding, unless there is none or it has retired (before any secret opens). */
export async function findChannel(
  ctx: UseCaseContext,
  channelId: string,
  lookup: ChannelLookup = {},
): Promise<ChannelView | undefined> {
  const c = await ctx.store.getChannel(channelId);
  if (c === undefined) return undefined;
  // A replaced or stopped channel's pushes are refused like an unknown channel's.
  if (c.retiresAt !== undefined && c.retiresAt <= ctx.clock.now()) return undefined;
  const secret =
    c.secretSealed === undefined || lookup.openSecret === false
      ? undefined
      : await ctx.tokens.open(c.secretSealed, { ...c.key, field: "channel_secret" });
  return {
    team: c.key.team,
    user: c.key.user,
    sourceId: c.sourceId,
    ...(secret !== undefined ? { secret } : {}),
    ...(c.kind !== undefined ? { kind: c.kind } : {}),
  };
}
