/**
 * The sources the sync reads: which are due at a poll, one as the sync sees it, its check recorded.
 */
import { pollPhasesEndedBy, pollVisitOf } from "#lib/core/poll";
import type { SourceRecord, UserRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import type { KnownSource, SourceSyncInput, SourceView, SyncMessage } from "../contracts";
import { UnknownUserError } from "../errors";
import { pollChecks } from "./../push/plan";
import {
  hasPlainAddress,
  openAddress,
  type SealedAddress,
  sealAddress,
} from "../secrets/source-address";
import { rulesOf } from "../status/desired-timeline";
import { mutateUser } from "../status/records";

/**
 * The sources to check of the users whose poll phase the poll run at `now` covers, through the
 * poll index: an ICS source every 15 minutes, at a fixed phase, so checks never move the index;
 * a connected one only when it should be read (lib/app/push/plan.ts pollChecks: with a live push
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
  ...(s.health !== undefined ? { health: s.health } : {}),
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

/** Records a source's check (its validators, when it ran, and whether it reached a cap). */
export async function recordSourceSync(
  ctx: UseCaseContext,
  key: UserKey,
  sourceId: string,
  sync: SourceSyncInput,
): Promise<void> {
  await mutateUser(ctx, key, (u) => ({
    ...u,
    sources: u.sources.map((s) => (s.id === sourceId ? withCheck(s, sync) : s)),
  }));
}

/** A source with a check recorded: a null `tooLarge` clears the mark, an absent one keeps it. */
function withCheck(source: SourceRecord, { tooLarge, ...sync }: SourceSyncInput): SourceRecord {
  const { tooLarge: before, ...rest } = source;
  const mark = tooLarge === undefined ? before : (tooLarge ?? undefined);
  return { ...rest, ...sync, ...(mark !== undefined ? { tooLarge: mark } : {}) };
}
