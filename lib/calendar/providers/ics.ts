import { createHash } from "node:crypto";
import { feedName, icsCalendarName } from "../calendar-name";
import { fetchFeed } from "../feed-fetch";
import { sourceUrlProblem } from "../source-rules";
import { SyncError } from "./errors";
import type {
  CalendarProvider,
  FetchDeps,
  SyncWindow,
  WindowFetch,
  WindowSource,
} from "./provider";

/**
 * The ICS feed: a calendar read through its secret address (iCalendar over http(s)), checked
 * with ETag / Last-Modified and a content hash, and expanded by lib/calendar over the window.
 * No push: ICS sources are polled.
 */
export const icsProvider = {
  kind: "ics",
  fetchWindow: fetchIcsWindow,
  sourceAddressProblem: sourceUrlProblem,
} as const satisfies CalendarProvider;

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
export const redactUrl = (url: string): string => {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}/…`;
  } catch {
    return "(invalid url)";
  }
};

/** The validators a response carries (an empty header too: it replaces the one recorded). */
const validatorsOf = (response: Response) => {
  const etag = response.headers.get("etag");
  const lastModified = response.headers.get("last-modified");
  return {
    ...(etag !== null ? { etag } : {}),
    ...(lastModified !== null ? { lastModified } : {}),
  };
};

/**
 * GETs the feed (conditionally when the source has validators), reads it under the size cap
 * and the timeout, and expands it over the window unless its content is the one last seen.
 */
export async function fetchIcsWindow(
  source: WindowSource,
  window: SyncWindow,
  deps: FetchDeps,
): Promise<WindowFetch> {
  const known = source.validators;
  const headers: Record<string, string> = { accept: "text/calendar, */*;q=0.5" };
  if (known?.etag) headers["if-none-match"] = known.etag;
  if (known?.lastModified) headers["if-modified-since"] = known.lastModified;

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), deps.timeoutMs);
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
        return {
          kind: "skipped",
          reason: fetched.reason,
          message: `sync skipped: feed address refused, ${fetched.message}`,
          detail: { feed: redactUrl(source.url), reason: fetched.reason },
        };
      }
      response = fetched.response;
    } catch (error: unknown) {
      const timedOut = controller.signal.aborted;
      throw new SyncError(
        timedOut ? "timeout" : "fetch_failed",
        timedOut
          ? `feed ${redactUrl(source.url)} did not answer in ${deps.timeoutMs} ms`
          : `feed ${redactUrl(source.url)} could not be fetched`,
        undefined,
        { cause: error },
      );
    }
    if (response.status === 304) {
      return { kind: "unchanged", reason: "not_modified", validators: validatorsOf(response) };
    }
    if (response.status >= 500 || response.status === 429) {
      throw new SyncError("upstream_status", `feed answered ${response.status}`, response.status);
    }
    if (!response.ok) {
      return {
        kind: "skipped",
        reason: `http_${response.status}`,
        message: "sync skipped: feed refused",
        detail: { status: response.status },
      };
    }
    try {
      text = await readCapped(response, deps.maxBytes, () => controller.abort());
    } catch (error: unknown) {
      if (error instanceof FeedTooLarge) {
        return {
          kind: "skipped",
          reason: "too_large",
          message: "sync skipped: feed over the size cap",
          detail: { maxBytes: deps.maxBytes },
        };
      }
      if (controller.signal.aborted) {
        throw new SyncError("timeout", `feed body did not arrive in ${deps.timeoutMs} ms`, 200, {
          cause: error,
        });
      }
      throw new SyncError("fetch_failed", "feed body could not be read", 200, { cause: error });
    }
  } finally {
    clearTimeout(timer);
  }

  const hash = createHash("sha256").update(text).digest("hex");
  const validators = validatorsOf(response);
  if (known?.hash === hash) return { kind: "unchanged", reason: "same_content", validators };
  const { etag, lastModified } = validators;
  const { occurrences, skipped, warnings } = await deps.expand(text, {
    from: window.from,
    to: window.to,
    userZone: source.tz,
    userEmails: source.emails,
  });
  const name = icsCalendarName(text) ?? feedName(source.url);
  return {
    kind: "fetched",
    ...(name !== undefined ? { name } : {}),
    occurrences,
    skipped,
    warnings: warnings ?? [],
    // A fetched calendar records only validators with a value.
    validators: { hash, ...(etag ? { etag } : {}), ...(lastModified ? { lastModified } : {}) },
  };
}
