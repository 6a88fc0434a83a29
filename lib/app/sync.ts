import type { FeedAddressGuard } from "../calendar/feed-fetch";
import type { ExpandFn, SourceValidators } from "../calendar/providers/provider";
import { findProvider, type SourceKind } from "../calendar/providers/registry";
import type { Clock } from "../core/clock";
import type { Log } from "../core/ports";
import type { UserRules } from "../core/rules";
import type { Block, Occurrence, UserKey } from "../core/types";
import { type ConnectedSync, readConnectedSource } from "./connect-read";
import type { SyncMessage, TimelineMeta } from "./contracts";

export { SyncError } from "../calendar/providers/errors";
export type { ExpandFn, Expansion } from "../calendar/providers/provider";

/** What the sync needs to know about one calendar source and its owner. */
export interface SyncSourceView {
  /**
   * Which provider reads it (lib/calendar/providers/registry.ts). Views without one are read as
   * ICS feeds, as every kind was before providers had reads of their own.
   */
  kind?: SourceKind;
  url: string;
  tz: string;
  emails: string[];
  rules: UserRules;
  etag?: string;
  lastModified?: string;
  hash?: string;
  /** When the feed was last checked (fetched, or answered 304), epoch ms. */
  syncedAt?: number;
}

/**
 * What a check records. `syncedAt` is the check time even when nothing changed (304 or the same
 * content), so the 15-minute poll index and the `already_synced` check count from the last check.
 */
export interface SourceSyncRecord {
  syncedAt: number;
  etag?: string;
  lastModified?: string;
  hash?: string;
  /** A connected source's incremental-read cursor (Google nextSyncToken). */
  cursor?: string;
}

export type BuildTimelineFn = (
  occurrences: Occurrence[],
  opts: { rules: UserRules; tz: string; from: number; to: number },
) => Block[];

export interface SyncDeps {
  clock: Clock;
  log: Log;
  fetch: typeof fetch;
  loadSource(key: UserKey, sourceId: string): Promise<SyncSourceView | undefined>;
  recordSourceSync(key: UserKey, sourceId: string, record: SourceSyncRecord): Promise<void>;
  applyTimeline(key: UserKey, blocks: Block[], meta: TimelineMeta): Promise<void>;
  expand: ExpandFn;
  buildTimeline: BuildTimelineFn;
  limits?: Partial<SyncLimits>;
  /** Which feed addresses may be fetched; without it any http(s) address is (a bare sync). */
  addressGuard?: FeedAddressGuard;
  /** Sources connected through a provider's API (lib/app/connect-read.ts); without it, none. */
  connected?: ConnectedSync;
}

export interface SyncLimits {
  maxBytes: number;
  timeoutMs: number;
  pastMs: number;
  futureMs: number;
  /**
   * An unchanged feed is re-expanded anyway once per window of this length, because the horizon
   * slides. Windows are staggered per source, so feeds do not all re-expand at the same moment.
   */
  refreshMs: number;
}

const DAY = 86_400_000;
export const DEFAULT_SYNC_LIMITS: SyncLimits = {
  maxBytes: 10 * 1024 * 1024,
  timeoutMs: 10_000,
  pastMs: DAY,
  futureMs: 14 * DAY,
  refreshMs: 6 * 3_600_000,
};

export type SyncOutcome =
  | { kind: "applied"; blocks: number; skipped: number }
  | {
      kind: "unchanged";
      /** `coalesced`: a sync of the source was running and runs once more in its place. */
      reason: "not_modified" | "same_content" | "already_synced" | "coalesced";
    }
  | { kind: "skipped"; reason: string };

/** FNV-1a of the source's identity: where in the refresh window its boundary falls. */
function refreshPhase(msg: SyncMessage, refreshMs: number): number {
  const id = `${msg.team}/${msg.user}/${msg.sourceId}`;
  let h = 2166136261;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 16777619) >>> 0;
  return h % refreshMs;
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
 * Pushes coalesce before this, at the sync gate (lib/app/sync-coalescing.ts).
 */
export async function syncSource(
  deps: SyncDeps,
  msg: SyncMessage,
  requestedAt?: number,
): Promise<SyncOutcome> {
  const limits = { ...DEFAULT_SYNC_LIMITS, ...deps.limits };
  const key: UserKey = { team: msg.team, user: msg.user };
  const logData = { user: msg.user, team: msg.team, sourceId: msg.sourceId, reason: msg.reason };
  const source = await deps.loadSource(key, msg.sourceId);
  if (!source) {
    deps.log.warn("sync skipped: unknown source", logData);
    return { kind: "skipped", reason: "unknown_source" };
  }
  const now = deps.clock.now();
  if (
    requestedAt !== undefined &&
    source.syncedAt !== undefined &&
    source.syncedAt >= requestedAt
  ) {
    deps.log.debug("sync coalesced with a later one", logData);
    return { kind: "unchanged", reason: "already_synced" };
  }
  const fresh = inRefreshWindow(msg, source.syncedAt, now, limits.refreshMs);
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
  // A source connected through the provider's API is read there, from its stored cursor.
  const apiRead = await readConnectedSource(deps.connected, provider, key, msg, source, {
    window: { from, to },
    refresh: !fresh,
  });
  if (apiRead === "skip") return { kind: "unchanged", reason: "already_synced" };
  const cursor = apiRead?.newCursor;
  const read =
    apiRead?.fetch ??
    (await provider.fetchWindow(
      {
        url: source.url,
        tz: source.tz,
        emails: source.emails,
        // Outside the refresh window the calendar is read and expanded in full.
        ...(fresh ? { validators: source satisfies SourceValidators } : {}),
      },
      { from, to },
      {
        fetch: deps.fetch,
        expand: deps.expand,
        maxBytes: limits.maxBytes,
        timeoutMs: limits.timeoutMs,
        ...(deps.addressGuard !== undefined ? { addressGuard: deps.addressGuard } : {}),
      },
    ));
  if (read.kind === "skipped") {
    deps.log.warn(read.message, { ...logData, ...read.detail });
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

  const { occurrences, skipped, warnings } = read;
  const { hash, etag } = read.validators;
  for (const item of skipped.slice(0, 20))
    deps.log.info("calendar item skipped", { ...logData, item });
  for (const item of warnings.slice(0, 20))
    deps.log.warn("calendar feed problem worked around", { ...logData, item });
  const blocks = deps.buildTimeline(occurrences, {
    rules: source.rules,
    tz: source.tz,
    from,
    to,
  });
  await deps.applyTimeline(key, blocks, {
    sourceId: msg.sourceId,
    hash,
    ...(etag ? { etag } : {}),
  });
  await deps.recordSourceSync(key, msg.sourceId, {
    syncedAt: now,
    ...read.validators,
    ...(cursor !== undefined ? { cursor } : {}),
  });
  deps.log.info("timeline applied", { ...logData, blocks: blocks.length, skipped: skipped.length });
  return { kind: "applied", blocks: blocks.length, skipped: skipped.length };
}
