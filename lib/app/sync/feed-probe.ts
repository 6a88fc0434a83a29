import { FeedBodyTooLarge, MAX_FEED_BYTES, readBodyCapped } from "#lib/calendar/feed-body";
import { type FeedAddressGuard, fetchFeed } from "#lib/calendar/feed-fetch";
import type { UserKey } from "#lib/core/types";
import { type SyncDeps, type SyncOutcome, syncSource } from "./sync";

/** The one read of a new calendar's address: its body, and the validators it came with. */
export interface ProbedFeed {
  body: string;
  etag?: string;
  lastModified?: string;
}

/** Why a calendar address cannot be saved after one fetch of it, or what that fetch read. */
export type FeedProbe = (url: string) => Promise<{ problem: string } | { feed: ProbedFeed }>;

/**
 * How long the one fetch before saving may take, body included: well inside the web function's
 * 10 s (serverless.yml), so a feed that never answers, or drips, gets the page's "could not be
 * reached" in time, and the save after it (a seal, a write, a queued sync) still fits.
 */
export const PROBE_TIMEOUT_MS = 5_000;

export interface FeedProbeLimits {
  timeoutMs: number;
  /** The sync's cap, on the bytes after any Content-Encoding is undone. */
  maxBytes: number;
}

const PROBE_LIMITS: FeedProbeLimits = { timeoutMs: PROBE_TIMEOUT_MS, maxBytes: MAX_FEED_BYTES };

/**
 * Fetches a calendar address once, as the sync will (every redirect's address checked by the
 * guard, the body read under the sync's byte cap), and answers why it is no calendar: refused,
 * unreachable, an HTTP error, too large, or not ICS. The address is a secret: it never reaches a
 * log or the answer.
 */
export function createFeedProbe(
  fetchFn: typeof fetch,
  guard: FeedAddressGuard,
  limits: FeedProbeLimits = PROBE_LIMITS,
): FeedProbe {
  return async (url) => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), limits.timeoutMs);
    const { signal } = controller;
    const problem = (text: string) => ({ problem: text });
    try {
      const got = await fetchFeed(
        fetchFn,
        url,
        { headers: { accept: "text/calendar" }, signal },
        guard,
      );
      if (got.kind === "refused") return problem(`the address is not allowed: ${got.message}`);
      if (!got.response.ok) {
        await got.response.body?.cancel().catch(() => undefined);
        return problem(`the calendar answered HTTP ${got.response.status}`);
      }
      const body = await readBodyCapped(got.response, limits.maxBytes, () => controller.abort());
      if (!body.includes("BEGIN:VCALENDAR")) {
        return problem("the address does not serve an ICS calendar");
      }
      const etag = got.response.headers.get("etag");
      const lastModified = got.response.headers.get("last-modified");
      return {
        feed: {
          body,
          ...(etag !== null ? { etag } : {}),
          ...(lastModified !== null ? { lastModified } : {}),
        },
      };
    } catch (error: unknown) {
      if (error instanceof FeedBodyTooLarge) {
        return problem(
          `the calendar is larger than ${Math.round(limits.maxBytes / 1024 / 1024)} MB`,
        );
      }
      return problem("the calendar could not be reached");
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Applies a new calendar's probed read as its first sync. */
export type FirstSync = (
  key: UserKey,
  sourceId: string,
  address: string,
  feed: ProbedFeed,
) => Promise<SyncOutcome>;

/**
 * How long a new calendar's first sync may take in the web function, after its check
 * (PROBE_TIMEOUT_MS): the two and the save stay well inside the function's 10 s. A calendar
 * that takes longer to expand (a large one, or one built to explode) is left to the sync worker,
 * whose sync is queued, with the whole of its budget.
 */
export const FIRST_SYNC_DEADLINE_MS = 3_000;

/**
 * The sync of a just-added calendar from the read that checked it, so the page that confirms it
 * shows its events: the sync's own path (expand, timeline, validators, reconcile) over a fetch
 * that answers with that read instead of the network. Its address is the one the person gave,
 * so nothing is opened, and it was checked when it was fetched.
 */
export function createFirstSync(deps: SyncDeps): FirstSync {
  return (key, sourceId, address, feed) => {
    // Nothing is fetched (the guard checked the address at the probe), and it is a feed.
    const { addressGuard: _checked, connected: _feedsOnly, ...rest } = deps;
    const timer = deps.workTimer;
    const until = timer && timer.elapsedMs() + FIRST_SYNC_DEADLINE_MS;
    const replay: typeof fetch = async () =>
      new Response(feed.body, {
        status: 200,
        headers: {
          "content-type": "text/calendar",
          ...(feed.etag !== undefined ? { etag: feed.etag } : {}),
          ...(feed.lastModified !== undefined ? { "last-modified": feed.lastModified } : {}),
        },
      });
    return syncSource(
      {
        ...rest,
        ...(timer !== undefined && until !== undefined
          ? { timeLeftMs: () => timeLeft(until - timer.elapsedMs(), deps.timeLeftMs?.()) }
          : {}),
        fetch: replay,
        loadSource: async (owner, id) => {
          const view = await deps.loadSource(owner, id);
          return view && { ...view, openUrl: async () => address };
        },
      },
      { ...key, sourceId, reason: "manual" },
    );
  };
}

/** The nearer of two deadlines' time left; `outer` is undefined outside an invocation's. */
const timeLeft = (mine: number, outer: number | undefined): number =>
  Math.max(0, outer === undefined ? mine : Math.min(mine, outer));
