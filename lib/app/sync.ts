import { createHash } from "node:crypto";
import type { Clock } from "../core/clock";
import type { Log } from "../core/ports";
import type { UserRules } from "../core/rules";
import type { Block, Occurrence, UserKey } from "../core/types";
import type { SyncMessage, TimelineMeta } from "./contracts";
import { type FeedAddressGuard, fetchFeed } from "./feed-fetch";

/** What the sync needs to know about one calendar source and its owner. */
export interface SyncSourceView {
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
}

export interface Expansion {
  occurrences: Occurrence[];
  skipped: Array<{ reason: string; uid?: string }>;
  /** What the feed got wrong but was read anyway (a guessed time zone, a dropped line). */
  warnings?: Array<{ message: string; uid?: string; tzid?: string }>;
}

/** lib/calendar's expand, injected so tests can count or fail calls (and the root can lazy-load). */
export type ExpandFn = (
  icsText: string,
  opts: { from: number; to: number; userZone: string; userEmails?: string[] },
) => Expansion | Promise<Expansion>;

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

/** A sync failure that is worth retrying (network, timeout, the feed's server failing). */
export class SyncError extends Error {
  override name = "SyncError";
  constructor(
    readonly code: "fetch_failed" | "timeout" | "upstream_status",
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

class FeedTooLarge extends Error {
  override name = "FeedTooLarge";
}

/** Reads a body, aborting as soon as it passes the cap, so a huge feed never sits in memory. */
async function readCapped(
  response: Response,
  maxBytes: number,
  abort: () => void,
): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > maxBytes) {
    abort();
    throw new FeedTooLarge(`declared ${declared} bytes`);
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      abort();
      await reader.cancel().catch(() => undefined);
      throw new FeedTooLarge(`more than ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** Only scheme and host reach the logs: a feed URL's path is its secret. */
const redactUrl = (url: string): string => {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}/…`;
  } catch {
    return "(invalid url)";
  }
};

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
 * Re-fetches one ICS source and replaces the user's timeline from it. Returns what happened;
 * throws SyncError only for failures worth a retry (the queue then redelivers, then dead-letters).
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

  const headers: Record<string, string> = { accept: "text/calendar, */*;q=0.5" };
  if (fresh && source.etag) headers["if-none-match"] = source.etag;
  if (fresh && source.lastModified) headers["if-modified-since"] = source.lastModified;

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
  let text: string;
  let response: Response;
  try {
    try {
      const fetched = await fetchFeed(
        deps.fetch,
        source.url,
        { headers, signal: controller.signal },
        deps.addressGuard,
      );
      if (fetched.kind === "refused") {
        // Retrying cannot help: the address stays refused until an admin replaces the source.
        deps.log.warn(`sync skipped: feed address refused, ${fetched.message}`, {
          ...logData,
          feed: redactUrl(source.url),
          reason: fetched.reason,
        });
        return { kind: "skipped", reason: fetched.reason };
      }
      response = fetched.response;
    } catch (error: unknown) {
      const timedOut = controller.signal.aborted;
      throw new SyncError(
        timedOut ? "timeout" : "fetch_failed",
        timedOut
          ? `feed ${redactUrl(source.url)} did not answer in ${limits.timeoutMs} ms`
          : `feed ${redactUrl(source.url)} could not be fetched`,
        undefined,
        { cause: error },
      );
    }
    if (response.status === 304) {
      deps.log.debug("feed not modified", logData);
      await recordCheck(
        response.headers.get("etag") ?? undefined,
        response.headers.get("last-modified") ?? undefined,
      );
      return { kind: "unchanged", reason: "not_modified" };
    }
    if (response.status >= 500 || response.status === 429) {
      throw new SyncError("upstream_status", `feed answered ${response.status}`, response.status);
    }
    if (!response.ok) {
      deps.log.warn("sync skipped: feed refused", { ...logData, status: response.status });
      return { kind: "skipped", reason: `http_${response.status}` };
    }
    try {
      text = await readCapped(response, limits.maxBytes, () => controller.abort());
    } catch (error: unknown) {
      if (error instanceof FeedTooLarge) {
        deps.log.warn("sync skipped: feed over the size cap", {
          ...logData,
          maxBytes: limits.maxBytes,
        });
        return { kind: "skipped", reason: "too_large" };
      }
      if (controller.signal.aborted) {
        throw new SyncError("timeout", `feed body did not arrive in ${limits.timeoutMs} ms`, 200, {
          cause: error,
        });
      }
      throw new SyncError("fetch_failed", "feed body could not be read", 200, { cause: error });
    }
  } finally {
    clearTimeout(timer);
  }

  const hash = createHash("sha256").update(text).digest("hex");
  const etag = response.headers.get("etag") ?? undefined;
  const lastModified = response.headers.get("last-modified") ?? undefined;
  const record: SourceSyncRecord = {
    syncedAt: now,
    hash,
    ...(etag ? { etag } : {}),
    ...(lastModified ? { lastModified } : {}),
  };
  if (fresh && source.hash === hash) {
    deps.log.debug("feed content unchanged", logData);
    await recordCheck(etag, lastModified);
    return { kind: "unchanged", reason: "same_content" };
  }

  const from = now - limits.pastMs;
  const to = now + limits.futureMs;
  const { occurrences, skipped, warnings } = await deps.expand(text, {
    from,
    to,
    userZone: source.tz,
    userEmails: source.emails,
  });
  for (const item of skipped.slice(0, 20))
    deps.log.info("calendar item skipped", { ...logData, item });
  for (const item of (warnings ?? []).slice(0, 20))
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
  await deps.recordSourceSync(key, msg.sourceId, record);
  deps.log.info("timeline applied", { ...logData, blocks: blocks.length, skipped: skipped.length });
  return { kind: "applied", blocks: blocks.length, skipped: skipped.length };
}
