import { type FeedAddressGuard, fetchFeed } from "#lib/calendar/feed-fetch";

/** Why a calendar address cannot be saved after one fetch of it, or undefined when it can. */
export type FeedProbe = (url: string) => Promise<string | undefined>;

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
      const text = await got.response.text();
      if (!text.includes("BEGIN:VCALENDAR")) return "the address does not serve an ICS calendar";
      return undefined;
    } catch {
      return "the calendar could not be reached";
    }
  };
}
