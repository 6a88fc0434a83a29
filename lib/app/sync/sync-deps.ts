// What a calendar sync is given and what it answers: the source as the sync sees it, what it
// records, its parts and limits (lib/app/sync/sync.ts reads with them).
import { MAX_FEED_BYTES } from "#lib/calendar/feed-body";
import type { FeedAddressGuard } from "#lib/calendar/feed-fetch";
import type { ExpandFn } from "#lib/calendar/providers/provider";
import type { Clock, WorkTimer } from "#lib/core/clock";
import type { Log, Metrics } from "#lib/core/ports";
import type { SourceHealth } from "#lib/core/records";
import type { UserRules } from "#lib/core/rules";
import type { ReadResult } from "#lib/core/source-health";
import type { Block, Occurrence, UserKey } from "#lib/core/types";
import type { ConnectedSync } from "../connect/connected-sync";
import type { KnownSource, SourceSyncInput, SourceView, TimelineMeta } from "../contracts";

/** What the sync needs to know about one calendar source and its owner. */
export type SyncSourceView = SourceView;

/**
 * What a check records. `syncedAt` is the check time even when nothing changed (304 or the same
 * content), so the 15-minute poll index and the `already_synced` check count from the last check.
 */
export type SourceSyncRecord = SourceSyncInput;

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
  /** Counts failed reads per provider (lib/app/metrics/catalog.ts). */
  metrics?: Metrics;
  /** Sources connected through a provider's API (lib/app/connect/connected-sync.ts); without it, none. */
  connected?: ConnectedSync;
  /**
   * Records what a read came to for the source's health (lib/app/sync/health.ts), given the
   * health the sync read with the source; without it, none is recorded.
   */
  recordHealth?: (
    key: UserKey,
    sourceId: string,
    read: ReadResult,
    known: SourceHealth | undefined,
  ) => Promise<void>;
  /**
   * Opens the address the poll carried as stored (`known`), sealed to its owner: the one place
   * a quick check opens one (a loaded source opens its own). Without it, only addresses stored
   * in clear can be checked quickly.
   */
  openAddress?: (stored: KnownSource, of: { key: UserKey; sourceId: string }) => Promise<string>;
  /**
   * Times the expansion against its budget (lib/calendar/work-budget.ts) and lets it give way
   * to the event loop; without it, the expansion runs untimed.
   */
  workTimer?: WorkTimer;
  /**
   * Milliseconds left before the invocation's deadline (the queue chain's per-record one), or
   * undefined outside one: the fetch and the expansion stop in time to record the outcome.
   */
  timeLeftMs?: () => number | undefined;
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
  maxBytes: MAX_FEED_BYTES,
  timeoutMs: 10_000,
  pastMs: DAY,
  futureMs: 14 * DAY,
  // A day: the 14-day horizon then always reaches 13 days ahead. Settings changes do not wait
  // for it: their syncs are "manual", and a manual sync always reads the calendar in full.
  refreshMs: DAY,
};

export type SyncOutcome =
  | { kind: "applied"; blocks: number; skipped: number }
  | {
      kind: "unchanged";
      /** `coalesced`: a sync of the source was running and runs once more in its place. */
      reason: "not_modified" | "same_content" | "already_synced" | "coalesced";
    }
  | { kind: "skipped"; reason: string };
