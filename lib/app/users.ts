import { pollPhasesEndedBy, pollVisitOf } from "#lib/core/poll";
import { VersionConflict } from "#lib/core/ports";
import type { SourceRecord, UserRecord } from "#lib/core/records";
import { userRulesSchema } from "#lib/core/rules";
import type { UserKey } from "#lib/core/types";
import type { UseCaseContext } from "./context";
import type {
  ChannelBindingInput,
  ChannelLookup,
  ChannelView,
  KnownSource,
  SourceSyncInput,
  SourceView,
  SyncMessage,
  UpsertUserInput,
  UserView,
} from "./contracts";
import { InvalidInputError, UnknownUserError } from "./errors";
import { parseInput, upsertUserSchemaFor } from "./inputs";
import { pollChecks } from "./push-plan";
import {
  hasAddress,
  hasPlainAddress,
  openAddress,
  type SealedAddress,
  sealAddress,
} from "./source-address";
import { mutateStatus, mutateUser } from "./status-records";
import { rulesOf } from "./user-timeline";
import { retryOnConflict } from "./version-retry";
import { viewOf } from "./views";

/** User administration: users, their calendar sources and push channels. */

/**
 * Creates or replaces a user; the token and source secrets are stored sealed. A new token ends
 * a re-authorisation stop (after an error, a `tokens_revoked` or an `app_uninstalled`, whose
 * scheduled deletion it cancels), and timelines of removed (or moved) calendars are dropped.
 */
export async function upsertUser(ctx: UseCaseContext, input: UpsertUserInput): Promise<UserView> {
  const policy = { allowPrivate: ctx.options.allowPrivateSourceAddresses };
  const valid = parseInput(upsertUserSchemaFor(policy), input);
  if (valid.rules !== undefined) parseInput(userRulesSchema, valid.rules, "/rules");
  const ids = valid.sources.map((s) => s.id);
  if (new Set(ids).size !== ids.length)
    throw new InvalidInputError("source ids must be unique", "/sources");
  const owner = valid.key;
  const tokenSealed = await ctx.tokens.seal(valid.token, { ...owner, field: "access_token" });
  const refreshTokenSealed =
    valid.refreshToken === undefined
      ? undefined
      : await ctx.tokens.seal(valid.refreshToken, { ...owner, field: "refresh_token" });
  const sealedSecrets = await Promise.all(
    valid.sources.map((s) =>
      s.secret === undefined
        ? undefined
        : ctx.tokens.seal(s.secret, { ...owner, field: "source_secret" }),
    ),
  );
  // Checked by the input schema (address policy) above; from here on only sealed.
  const sealedAddresses = await Promise.all(
    valid.sources.map((s) => sealAddress(ctx.tokens, owner, s.id, s.url)),
  );
  return retryOnConflict(
    ctx.options.maxConflictRetries,
    async () => {
      const now = ctx.clock.now();
      const snap = await ctx.store.loadUser(valid.key);
      const existing = snap.user;
      const unchanged = (id: string, url: string): boolean =>
        existing?.sources.some((o) => o.id === id && hasAddress(owner, o, url)) === true;
      const sources: SourceRecord[] = valid.sources.map((s, i) => {
        const found = existing?.sources.find((o) => o.id === s.id && hasAddress(owner, o, s.url));
        // A clear address from before addresses were sealed is replaced by the sealed one.
        const { url: _clear, ...old } = found ?? { url: undefined };
        const secretSealed = sealedSecrets[i];
        const address = sealedAddresses[i];
        if (address === undefined) throw new Error("one sealed address per source");
        return {
          ...old,
          id: s.id,
          kind: s.kind,
          ...address,
          ...(secretSealed !== undefined ? { secretSealed } : {}),
        };
      });
      const record: UserRecord = {
        key: valid.key,
        tz: valid.tz,
        tokenSealed,
        // A fresh token: rotation's pair when given; no uninstall mark (a reinstall keeps the data).
        ...(refreshTokenSealed !== undefined ? { refreshTokenSealed } : {}),
        ...(valid.tokenExpiresAt !== undefined ? { tokenExpiresAt: valid.tokenExpiresAt } : {}),
        ...(valid.adminTokenUser !== undefined ? { adminTokenUser: valid.adminTokenUser } : {}),
        emails: valid.emails ?? existing?.emails ?? [],
        sources,
        rules: valid.rules ?? existing?.rules ?? {},
        mode: valid.mode,
        version: existing?.version ?? 0,
        updatedAt: now,
        // Kept: replacing a user through the admin API does not sign them out.
        ...(existing?.sessionEpoch !== undefined ? { sessionEpoch: existing.sessionEpoch } : {}),
      };
      const saved = await ctx.store.putUser(record, existing?.version);
      // A new token ends a re-authorisation stop.
      let resumed = false;
      await mutateStatus(ctx, valid.key, (rec) => {
        const { needsReauth: cleared, ...state } = rec.state;
        resumed = cleared !== undefined;
        return { ...rec, state };
      });
      // Timelines of calendars removed (or moved to another address) no longer count.
      const kept = (sourceId: string): boolean =>
        valid.sources.some((src) => src.id === sourceId && unchanged(src.id, src.url));
      const orphans = snap.timelines.filter((t) => !kept(t.sourceId));
      for (const t of orphans) await ctx.store.deleteTimeline(valid.key, t.sourceId);
      // Resumed: reconcile now, from the timelines already stored. No sync would apply them
      // again before its refresh window (the feeds did not change), and the stop left no
      // transition scheduled, so nothing else would write before then.
      if (resumed || (orphans.length > 0 && existing !== undefined)) await ctx.reconcile(valid.key);
      return viewOf(ctx, saved, undefined);
    },
    () => {
      throw new VersionConflict(`user ${valid.key.user}`, undefined);
    },
  );
}

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

/**
 * The sources to check of the users whose poll phase the poll run at `now` covers, through the
 * poll index: an ICS source every 15 minutes, at a fixed phase, so checks never move the index;
 * a connected one only when it should be read (push-plan.ts pollChecks: with a live push
 * channel, at one fixed visit in each 6 hours), decided from what the index holds of it.
 */
export async function sourcesDue(ctx: UseCaseContext, now: number): Promise<SyncMessage[]> {
  const { from, to } = pollPhasesEndedBy(now);
  const visit = pollVisitOf(now);
  const users = await ctx.store.usersToPoll(from, to);
  // Each check carries what the index holds of its source, so an unchanged one reads nothing.
  return users.flatMap((u) =>
    u.sources
      .filter((s) => pollChecks(s, u.key, visit, now))
      .map(
        (s): SyncMessage => ({
          team: u.key.team,
          user: u.key.user,
          sourceId: s.id,
          reason: "poll",
          known: knownOf(s),
        }),
      ),
  );
}

const knownOf = (s: SourceRecord): KnownSource => ({
  kind: s.kind,
  ...(s.url !== undefined ? { url: s.url } : {}),
  ...(s.urlSealed !== undefined ? { urlSealed: s.urlSealed } : {}),
  ...(s.refreshTokenSealed !== undefined ? { connected: true as const } : {}),
  ...(s.etag !== undefined ? { etag: s.etag } : {}),
  ...(s.lastModified !== undefined ? { lastModified: s.lastModified } : {}),
  ...(s.hash !== undefined ? { hash: s.hash } : {}),
  ...(s.syncedAt !== undefined ? { syncedAt: s.syncedAt } : {}),
});

/**
 * One source as the sync reads it. Its address opens only when the sync fetches (`openUrl`), so
 * a sync that skips costs no decrypt. A user with addresses still in clear (written before
 * addresses were sealed) has them sealed now: the sync is the one reader of every address.
 */
export async function loadSource(
  ctx: UseCaseContext,
  key: UserKey,
  sourceId: string,
): Promise<SourceView | undefined> {
  let user = await ctx.store.getUser(key);
  if (user?.sources.some(hasPlainAddress) === true) user = await sealPlainAddresses(ctx, user);
  const src = user?.sources.find((s) => s.id === sourceId);
  if (user === undefined || src === undefined) return undefined;
  // Uninstalled: the team's calendars are no longer read (the data awaits deletion).
  if (user.uninstalledAt !== undefined) return undefined;
  return {
    kind: src.kind,
    openUrl: () => openAddress(ctx.tokens, key, src),
    tz: user.tz,
    emails: user.emails,
    rules: rulesOf(ctx.log, user),
    ...(src.etag !== undefined ? { etag: src.etag } : {}),
    ...(src.lastModified !== undefined ? { lastModified: src.lastModified } : {}),
    ...(src.hash !== undefined ? { hash: src.hash } : {}),
    ...(src.syncedAt !== undefined ? { syncedAt: src.syncedAt } : {}),
    stored: src,
  };
}

/**
 * Seals every address of `user` still in clear, and stores them sealed; answers the record as
 * written (undefined when the user was deleted meanwhile).
 */
async function sealPlainAddresses(
  ctx: UseCaseContext,
  user: UserRecord,
): Promise<UserRecord | undefined> {
  const key = user.key;
  const sealed = new Map<string, { url: string; address: SealedAddress }>();
  for (const s of user.sources) {
    if (s.url !== undefined && hasPlainAddress(s)) {
      sealed.set(s.id, { url: s.url, address: await sealAddress(ctx.tokens, key, s.id, s.url) });
    }
  }
  let written: UserRecord | undefined;
  try {
    await mutateUser(ctx, key, (u) => {
      written = {
        ...u,
        // A source whose address changed meanwhile keeps what it has now.
        sources: u.sources.map((s) => {
          const done = sealed.get(s.id);
          if (done === undefined || s.url !== done.url || !hasPlainAddress(s)) return s;
          const { url: _clear, ...rest } = s;
          return { ...rest, ...done.address };
        }),
      };
      return written;
    });
  } catch (error: unknown) {
    if (error instanceof UnknownUserError) return undefined;
    throw error;
  }
  ctx.log.info("calendar addresses sealed", { team: key.team, user: key.user });
  return written;
}

/** Records a source's check (its validators and when it ran). */
export async function recordSourceSync(
  ctx: UseCaseContext,
  key: UserKey,
  sourceId: string,
  sync: SourceSyncInput,
): Promise<void> {
  await mutateUser(ctx, key, (u) => ({
    ...u,
    sources: u.sources.map((s) => (s.id === sourceId ? { ...s, ...sync } : s)),
  }));
}
