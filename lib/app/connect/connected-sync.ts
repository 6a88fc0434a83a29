import { ProviderError, SyncError } from "#lib/calendar/providers/errors";
import type {
  ApiSource,
  ApiWindowFetch,
  CalendarProvider,
  SyncWindow,
} from "#lib/calendar/providers/provider";
import type { SourceRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import type { ConnectAccess } from "../accounts/access";
import type { UseCaseContext } from "../context";
import type { SyncMessage } from "../contracts";
import { upkeepOverdue } from "../push/plan";
import { type PushScheduleDeps, upkeepMessage } from "../push/schedule";
import { updatePush } from "../push/upkeep";

/**
 * How the sync (lib/app/sync/sync.ts) reads a source connected through a provider's API: a push clears a
 * silence the safety net found; the poll sends a check of such a source only when it should read
 * (lib/app/push/plan.ts pollChecks: at its safety-net visit while the channel lives, at every visit while
 * it does not), so a poll check that arrives reads. The channel's upkeep runs on its own schedule (lib/app/push/schedule.ts, through the due
 * index); the poll's visit is that schedule's safety net: an upkeep it finds overdue (no channel,
 * a lapsed one, or one long past its renewal: an entry lost, or a channel from before entries
 * existed) is asked for at once, and so is a recreate when the safety-net read finds changes no
 * push announced. The read itself is the provider's `readApi`, with the account's access token;
 * its failures become the sync's: a dead refresh token flags the source "reconnect" (no retry
 * helps), the rest are retried by the queue.
 */
export interface ConnectedSync {
  /**
   * The source's record when it is connected (else undefined: it is read as before), or
   * `skip` when it cannot be read (its account must be connected again). `stored` is the source
   * as the sync loaded it, when it did: then the user is not read again.
   */
  prepare(
    key: UserKey,
    sourceId: string,
    reason: SyncMessage["reason"],
    stored?: SourceRecord,
  ): Promise<{ source: SourceRecord } | { skip: true } | undefined>;
  read(
    provider: CalendarProvider,
    key: UserKey,
    source: SourceRecord,
    window: SyncWindow,
    owner: { tz: string; emails: string[]; reason: SyncMessage["reason"]; refresh: boolean },
  ): Promise<ApiWindowFetch>;
}

export function createConnectedSync(
  ctx: UseCaseContext,
  access: ConnectAccess,
  scheduled: Pick<PushScheduleDeps, "syncQueue">,
): ConnectedSync {
  const askUpkeep = (key: UserKey, sourceId: string, upkeep: SyncMessage["upkeep"]) =>
    scheduled.syncQueue.send(upkeepMessage(key, sourceId, upkeep), { delaySeconds: 0 });
  return {
    async prepare(key, sourceId, reason, stored) {
      const source =
        stored ?? (await ctx.store.getUser(key))?.sources.find((s) => s.id === sourceId);
      if (source?.refreshTokenSealed === undefined) return undefined;
      if (source.reconnectSince !== undefined) return { skip: true };
      const now = ctx.clock.now();
      if (reason === "push") {
        // A push proves the channel works again: it clears the silence a safety-net read found.
        // Otherwise it writes nothing here (its sync writes what the calendar changed): no
        // lapse rule reads when the last push came, since a calendar nobody edits sends none.
        if (source.push?.silentSince !== undefined) {
          await updatePush(ctx, key, sourceId, ({ silentSince: _quiet, ...rest }) => rest);
        }
        return { source };
      }
      // The poll chose to read it (pollChecks); its upkeep may be why: ask the repair.
      if (reason === "poll" && upkeepOverdue(source.push, now)) {
        await askUpkeep(key, sourceId, { repair: true });
      }
      return { source };
    },

    async read(provider, key, source, window, { tz, emails, reason, refresh }) {
      if (provider.readApi === undefined) {
        throw new SyncError("upstream_status", `no API read for sources of kind ${source.kind}`);
      }
      const apiSource: ApiSource = {
        tz,
        emails,
        ...(source.cursor !== undefined ? { cursor: source.cursor } : {}),
        ...(source.hash !== undefined && !refresh ? { hash: source.hash } : {}),
        ...(refresh ? { refresh } : {}),
      };
      try {
        const read = await provider.readApi(apiSource, window, access.apiDeps(key, source));
        if (reason === "poll" && read.changedSinceCursor === true && source.push !== undefined) {
          // Changes no push announced: a push sync would have moved the cursor past them. The
          // channel counts as lapsed from now on: recreated at once.
          await noteSilence(ctx, key, source.id);
          await askUpkeep(key, source.id, undefined);
        }
        return read;
      } catch (error: unknown) {
        if (!(error instanceof ProviderError)) throw error;
        if (error.code === "invalid_grant") {
          await access.flagReconnect(key, source.id);
          return {
            fetch: {
              kind: "skipped",
              reason: "reconnect",
              message: "calendar skipped: the connected account must be reconnected",
              detail: { kind: source.kind },
            },
          };
        }
        throw new SyncError("upstream_status", error.message, error.status, { cause: error });
      }
    },
  };
}

/**
 * The sync's one call: undefined when the source is not connected (it is read as a feed),
 * "skip" when it cannot be read, else the API read and the cursor to store (when new). `view`
 * is the source as the sync loaded it; its `stored` record spares a second read of the user.
 */
export async function readConnectedSource(
  connected: ConnectedSync | undefined,
  provider: CalendarProvider,
  key: UserKey,
  msg: SyncMessage,
  view: { tz: string; emails: string[]; stored?: SourceRecord },
  opts: { window: SyncWindow; refresh: boolean },
): Promise<(ApiWindowFetch & { newCursor?: string }) | "skip" | undefined> {
  if (connected === undefined || provider.readApi === undefined) return undefined;
  const prepared = await connected.prepare(key, msg.sourceId, msg.reason, view.stored);
  if (prepared === undefined) return undefined;
  if ("skip" in prepared) return "skip";
  const read = await connected.read(provider, key, prepared.source, opts.window, {
    tz: view.tz,
    emails: view.emails,
    reason: msg.reason,
    refresh: opts.refresh,
  });
  return read.cursor !== undefined && read.cursor !== prepared.source.cursor
    ? { ...read, newCursor: read.cursor }
    : read;
}

async function noteSilence(ctx: UseCaseContext, key: UserKey, sourceId: string) {
  const now = ctx.clock.now();
  await updatePush(ctx, key, sourceId, (p) => ({ ...p, silentSince: p.silentSince ?? now }));
}
