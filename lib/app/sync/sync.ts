import type { ExpandFn, SourceValidators } from "#lib/calendar/providers/provider";
import { findProvider } from "#lib/calendar/providers/registry";
import { agendaOf, agendaWindow } from "#lib/core/agenda";
import { fnv1a } from "#lib/core/hash";
import type { SourceHealth, TooLargeMark } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { readConnectedSource } from "../connect/connected-sync";
import type { KnownSource, SyncMessage } from "../contracts";
import { countSyncFailure } from "../metrics/catalog";
import { readFailureOf, readResultOf } from "./health";
import {
  DEFAULT_SYNC_LIMITS,
  type SyncDeps,
  type SyncOutcome,
  type SyncSourceView,
} from "./sync-deps";

export { SyncError } from "#lib/calendar/providers/errors";
export type { ExpandFn, Expansion } from "#lib/calendar/providers/provider";
export {
  type BuildTimelineFn,
  DEFAULT_SYNC_LIMITS,
  type SourceSyncRecord,
  type SyncDeps,
  type SyncLimits,
  type SyncOutcome,
  type SyncSourceView,
} from "./sync-deps";

/** Kept back from the deadline for what follows the expansion: the timeline and the record. */
export const SYNC_FINISH_RESERVE_MS = 1_500;

const addressInClear = async (stored: KnownSource): Promise<string> => {
  if (stored.url === undefined) throw new Error("no way to open a sealed address");
  return stored.url;
};

/** The source or its owner went away between the poll and a quick check's expansion. */
class SourceGone extends Error {
  override name = "SourceGone";
}

/** FNV-1a of the source's identity: where in the refresh window its boundary falls. */
function refreshPhase(msg: SyncMessage, refreshMs: number): number {
  return fnv1a(`${msg.team}/${msg.user}/${msg.sourceId}`) % refreshMs;
}

/**
 * Whether the last check lies in the current refresh window: then conditional headers and the
 * content hash may short-cut the expansion. The first check in a new window expands in full.
 */
export function inRefreshWindow(
  msg: SyncMessage,
  lastCheck: number | undefined,
  now: number,
  refreshMs: number,
): boolean {
  if (lastCheck === undefined || now - lastCheck >= refreshMs) return false;
  const phase = refreshPhase(msg, refreshMs);
  return Math.floor((lastCheck + phase) / refreshMs) === Math.floor((now + phase) / refreshMs);
}

/**
 * Re-reads one calendar source through its provider (lib/calendar/providers) and replaces the
 * user's timeline from it. Returns what happened; throws SyncError only for failures worth a retry (the queue then redelivers, then dead-letters).
 * `requestedAt` (epoch ms) lets a late or redelivered message skip: a sync started after it covers it.
 * Pushes coalesce before this, at the sync gate (lib/app/sync/coalescing.ts).
 */
export async function syncSource(
  deps: SyncDeps,
  msg: SyncMessage,
  requestedAt?: number,
): Promise<SyncOutcome> {
  const seen: SeenSource = {};
  const key: UserKey = { team: msg.team, user: msg.user };
  let outcome: SyncOutcome;
  try {
    outcome = await readSource(deps, msg, requestedAt, seen);
  } catch (error: unknown) {
    if (seen.found === true && deps.recordHealth !== undefined) {
      // Best effort: the failure itself is what the queue must see.
      await deps
        .recordHealth(key, msg.sourceId, readFailureOf(error), seen.health)
        .catch((recordError: unknown) =>
          deps.log.warn("sync health not recorded", {
            user: msg.user,
            sourceId: msg.sourceId,
            error: recordError instanceof Error ? recordError.message : String(recordError),
          }),
        );
    }
    throw error;
  }
  const read = readResultOf(outcome);
  if (read !== undefined && deps.recordHealth !== undefined) {
    await deps.recordHealth(key, msg.sourceId, read, seen.health);
  }
  return outcome;
}

/** What the read found of its source: whether there was one, and its health as read. */
interface SeenSource {
  found?: boolean;
  health?: SourceHealth;
}

async function readSource(
  deps: SyncDeps,
  msg: SyncMessage,
  requestedAt: number | undefined,
  seen: SeenSource,
): Promise<SyncOutcome> {
  const limits = { ...DEFAULT_SYNC_LIMITS, ...deps.limits };
  const key: UserKey = { team: msg.team, user: msg.user };
  const logData = { user: msg.user, team: msg.team, sourceId: msg.sourceId, reason: msg.reason };
  const now = deps.clock.now();
  const timeLeft = deps.timeLeftMs?.();
  const workLeft = timeLeft === undefined ? undefined : timeLeft - SYNC_FINISH_RESERVE_MS;
  const timer = deps.workTimer;
  const stopBy =
    timer !== undefined && workLeft !== undefined ? timer.elapsedMs() + workLeft : undefined;
  let loaded: Promise<SyncSourceView | undefined> | undefined;
  const loadFull = () => {
    loaded ??= deps.loadSource(key, msg.sourceId);
    return loaded;
  };
  /**
   * With what the poll read of the source (`known`), a check inside the refresh window starts
   * without reading the store: only a calendar that changed needs the owner (zone, addresses,
   * rules), and the expansion loads them first. Outside the window the source is read first.
   */
  const known = msg.known;
  const quick =
    known !== undefined &&
    known.connected !== true &&
    msg.reason !== "manual" &&
    inRefreshWindow(msg, known.syncedAt, now, limits.refreshMs);
  const source: KnownSource | SyncSourceView | undefined = quick ? known : await loadFull();
  if (!source) {
    deps.log.warn("sync skipped: unknown source", logData);
    return { kind: "skipped", reason: "unknown_source" };
  }
  seen.found = true;
  const health = "tz" in source ? source.stored?.health : source.health;
  if (health !== undefined) seen.health = health;
  if (
    requestedAt !== undefined &&
    source.syncedAt !== undefined &&
    source.syncedAt >= requestedAt
  ) {
    deps.log.debug("sync coalesced with a later one", logData);
    return { kind: "unchanged", reason: "already_synced" };
  }
  // A manual sync (a new calendar, new rules, a resume) applies them even to the same calendar.
  const fresh =
    msg.reason !== "manual" &&
    (quick || inRefreshWindow(msg, source.syncedAt, now, limits.refreshMs));
  /**
   * A check that found the same calendar: records new validators (and the check time) only when
   * the feed sent different ones. An unchanged feed's check writes nothing: the poll finds each
   * source by a fixed phase, not by its last check, so there is nothing to move.
   */
  const recordCheck = async (etag: string | undefined, lastModified: string | undefined) => {
    const nextEtag = etag ?? source.etag;
    const nextLastModified = lastModified ?? source.lastModified;
    if (nextEtag === source.etag && nextLastModified === source.lastModified) return;
    await deps.recordSourceSync(key, msg.sourceId, {
      syncedAt: now,
      ...(source.hash !== undefined ? { hash: source.hash } : {}),
      ...(nextEtag !== undefined ? { etag: nextEtag } : {}),
      ...(nextLastModified !== undefined ? { lastModified: nextLastModified } : {}),
    });
  };
  /**
   * Expands on the work timer, stopping by the deadline; on a quick check the calendar changed,
   * so it is expanded in its owner's zone, read now.
   */
  const expand: ExpandFn = async (text, opts) => {
    const pace = timer && { timer, ...(stopBy !== undefined ? { stopBy } : {}) };
    const paced = { ...opts, ...(pace !== undefined ? { pace } : {}) };
    if (!quick) return deps.expand(text, paced);
    const full = await loadFull();
    if (full === undefined) throw new SourceGone();
    return deps.expand(text, { ...paced, userZone: full.tz, userEmails: full.emails });
  };

  const provider = findProvider(source.kind ?? "ics");
  if (provider === undefined) {
    // Retrying cannot help: nothing reads that kind until a provider for it is registered.
    deps.log.warn("sync skipped: no provider for the source's kind", {
      ...logData,
      kind: source.kind,
    });
    return { kind: "skipped", reason: "unknown_kind" };
  }
  const from = now - limits.pastMs;
  const to = now + limits.futureMs;
  const failed = () => deps.metrics && countSyncFailure(deps.metrics, source.kind ?? "ics");
  const failing = (error: unknown): never => {
    failed();
    throw error;
  };
  const view = "tz" in source ? source : undefined;
  // A source connected through the provider's API is read there, from its stored cursor (a
  // quick check is never one: the poll marks connected sources, and they are loaded, once: the
  // loaded view carries the stored record the API read needs).
  const apiRead = view
    ? await readConnectedSource(deps.connected, provider, key, msg, view, {
        window: { from, to },
        refresh: !fresh,
      }).catch(failing)
    : undefined;
  if (apiRead === "skip") return { kind: "unchanged", reason: "already_synced" };
  const cursor = apiRead?.newCursor;
  let read: Awaited<ReturnType<typeof provider.fetchWindow>>;
  try {
    read =
      apiRead?.fetch ??
      (await provider
        .fetchWindow(
          {
            // A loaded source opens its own address; the poll carries it as stored.
            url: view
              ? await view.openUrl()
              : await (deps.openAddress ?? addressInClear)(source as KnownSource, {
                  key,
                  sourceId: msg.sourceId,
                }),
            // A quick check learns the zone and addresses only if the calendar changed (`expand`).
            tz: view?.tz ?? "UTC",
            emails: view?.emails ?? [],
            // Outside the refresh window the calendar is read and expanded in full.
            ...(fresh ? { validators: source satisfies SourceValidators } : {}),
          },
          { from, to },
          {
            fetch: deps.fetch,
            expand,
            maxBytes: limits.maxBytes,
            // Never past the invocation's deadline: a feed that drips fails alone, in time.
            timeoutMs: Math.max(0, Math.min(limits.timeoutMs, workLeft ?? limits.timeoutMs)),
            ...(deps.addressGuard !== undefined ? { addressGuard: deps.addressGuard } : {}),
          },
        )
        .catch(failing));
  } catch (error: unknown) {
    if (!(error instanceof SourceGone)) throw error;
    deps.log.warn("sync skipped: unknown source", logData);
    return { kind: "skipped", reason: "unknown_source" };
  }
  if (read.kind === "skipped") {
    failed();
    deps.log.warn(read.message, { ...logData, ...read.detail });
    if (read.reason === "too_large") {
      // Not read at all: its owner is told why beside the calendar (lib/web/pages).
      const tooLarge: TooLargeMark = { limit: "bytes", cap: limits.maxBytes, at: now };
      await deps.recordSourceSync(key, msg.sourceId, { tooLarge });
    }
    return { kind: "skipped", reason: read.reason };
  }
  if (read.kind === "unchanged") {
    deps.log.debug(
      read.reason === "not_modified" ? "feed not modified" : "feed content unchanged",
      logData,
    );
    await recordCheck(read.validators.etag, read.validators.lastModified);
    if (cursor !== undefined) {
      await deps.recordSourceSync(key, msg.sourceId, { syncedAt: now, cursor });
    }
    return { kind: "unchanged", reason: read.reason };
  }

  const owner = view ?? (await loadFull());
  if (owner === undefined) {
    deps.log.warn("sync skipped: unknown source", logData);
    return { kind: "skipped", reason: "unknown_source" };
  }
  const { occurrences, skipped, warnings, truncated, spentMs } = read;
  const { hash, etag } = read.validators;
  const cost = spentMs !== undefined ? { expansionCpuMs: Math.round(spentMs) } : {};
  if (truncated !== undefined) {
    deps.log.warn("calendar too large: read up to its cap", { ...logData, ...truncated, ...cost });
  }
  for (const item of skipped.slice(0, 20))
    deps.log.info("calendar item skipped", { ...logData, item });
  for (const item of warnings.slice(0, 20))
    deps.log.warn("calendar feed problem worked around", { ...logData, item });
  // The rules' calendar conditions (`calendars`, `skipCalendars`) read which source it is.
  const stamped = occurrences.map((o) => ({ ...o, sourceId: msg.sourceId }));
  const blocks = deps.buildTimeline(stamped, {
    rules: owner.rules,
    tz: owner.tz,
    from,
    to,
  });
  await deps.applyTimeline(key, blocks, {
    sourceId: msg.sourceId,
    hash,
    ...(etag ? { etag } : {}),
    agenda: agendaOf(stamped, agendaWindow(from, now, limits.refreshMs)),
  });
  await deps.recordSourceSync(key, msg.sourceId, {
    syncedAt: now,
    ...read.validators,
    ...(cursor !== undefined ? { cursor } : {}),
    tooLarge: truncated !== undefined ? { ...truncated, at: now } : null,
    ...(read.name !== undefined ? { name: read.name } : {}),
  });
  deps.log.info("timeline applied", {
    ...logData,
    blocks: blocks.length,
    skipped: skipped.length,
    ...cost,
  });
  return { kind: "applied", blocks: blocks.length, skipped: skipped.length };
}
