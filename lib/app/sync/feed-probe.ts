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

/** How long the one fetch before saving may take. */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Fetches a calendar address once, as the sync will (every redirect's address checked by the
 * guard), and answers why it is no calendar: refused, unreachable, an HTTP error, or not ICS.
 * The address is a secret: it never reaches a log or the answer.
 */
export function createFeedProbe(fetchFn: typeof fetch, guard: FeedAddressGuard): FeedProbe {
  return async (url) => {
    const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
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
      const body = await got.response.text();
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
    } catch {
      return problem("the calendar could not be reached");
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
 * The sync of a just-added calendar from the read that checked it, so the page that confirms it
 * shows its events: the sync's own path (expand, timeline, validators, reconcile) over a fetch
 * that answers with that read instead of the network. Its address is the one the person gave,
 * so nothing is opened, and it was checked when it was fetched.
 */
export function createFirstSync(deps: SyncDeps): FirstSync {
  return (key, sourceId, address, feed) => {
    // Nothing is fetched (the guard checked the address at the probe), and it is a feed.
    const { addressGuard: _checked, connected: _feedsOnly, ...rest } = deps;
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
