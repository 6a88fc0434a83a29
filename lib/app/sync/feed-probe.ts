import { FeedBodyTooLarge, MAX_FEED_BYTES, readBodyCapped } from "#lib/calendar/feed-body";
import { type FeedAddressGuard, fetchFeed } from "#lib/calendar/feed-fetch";

/** Why a calendar address cannot be saved after one fetch of it, or undefined when it can. */
export type FeedProbe = (url: string) => Promise<string | undefined>;

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
    try {
      const got = await fetchFeed(
        fetchFn,
        url,
        { headers: { accept: "text/calendar" }, signal },
        guard,
      );
      if (got.kind === "refused") return `the address is not allowed: ${got.message}`;
      if (!got.response.ok) {
        await got.response.body?.cancel().catch(() => undefined);
        return `the calendar answered HTTP ${got.response.status}`;
      }
      const text = await readBodyCapped(got.response, limits.maxBytes, () => controller.abort());
      if (!text.includes("BEGIN:VCALENDAR")) return "the address does not serve an ICS calendar";
      return undefined;
    } catch (error: unknown) {
      if (error instanceof FeedBodyTooLarge) {
        return `the calendar is larger than ${Math.round(limits.maxBytes / 1024 / 1024)} MB`;
      }
      return "the calendar could not be reached";
    } finally {
      clearTimeout(timer);
    }
  };
}
