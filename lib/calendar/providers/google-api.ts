import * as z from "zod";
import { ProviderError } from "./errors";
import { type GoogleEvent, googleEventsPage } from "./google-events";
import type { ApiReadDeps, PushRequest, PushSubscription } from "./provider";

/**
 * The Google Calendar API v3 calls a Google source makes, over `fetch` with the connected
 * account's access token, against a configured base URL (the real API or the emulator):
 * events.list on `primary` (paged, full or incremental), events.watch and channels.stop.
 *
 * Failing answers become ProviderError by the documented meanings: 401 `unauthorized` (the
 * access token is refreshed and the call made once more, here), 410 `sync_token_expired` (the
 * caller reads in full), 403 `rateLimitExceeded` / `userRateLimitExceeded` and 429
 * `rate_limited` (with Retry-After when sent), anything else `upstream_status`.
 */

/** `apiBaseUrl` is the Google APIs root, e.g. https://www.googleapis.com (no /calendar/v3). */
export type GoogleApiDeps = ApiReadDeps;

/** The most pages one read follows: 40 × 250 events is far more than a 15-day window holds. */
export const MAX_PAGES = 40;

const RATE_LIMIT_REASONS = new Set(["rateLimitExceeded", "userRateLimitExceeded"]);

/** Built on first use, like every schema here: bundles that never call Google leave them out. */
const lazy = <T>(make: () => T): (() => T) => {
  let made: T | undefined;
  return () => (made ??= make());
};

const errorBodySchema = lazy(() =>
  z
    .object({
      error: z
        .object({
          errors: z.array(z.object({ reason: z.string().optional() }).loose()).optional(),
          status: z.string().optional(),
          message: z.string().optional(),
        })
        .loose()
        .optional(),
    })
    .loose(),
);

/** The documented `reason`s of a Google error body. */
async function reasonsOf(res: Response): Promise<string[]> {
  try {
    const parsed = errorBodySchema().safeParse(await res.json());
    if (!parsed.success) return [];
    return (parsed.data.error?.errors ?? []).flatMap((e) => (e.reason ? [e.reason] : []));
  } catch {
    return [];
  }
}

function retryAfterOf(res: Response): number | undefined {
  const v = res.headers.get("retry-after");
  if (v === null) return undefined;
  const s = Number(v);
  return Number.isFinite(s) && s >= 0 ? Math.ceil(s) : undefined;
}

/** The ProviderError a failing answer means. */
export async function googleErrorOf(res: Response, what: string): Promise<ProviderError> {
  const status = res.status;
  const reasons = await reasonsOf(res);
  if (status === 401) return new ProviderError("unauthorized", `${what}: 401`, { status });
  if (status === 410) {
    return new ProviderError("sync_token_expired", `${what}: 410 Gone (full sync needed)`, {
      status,
    });
  }
  if (status === 429 || (status === 403 && reasons.some((r) => RATE_LIMIT_REASONS.has(r)))) {
    const retryAfterS = retryAfterOf(res);
    return new ProviderError("rate_limited", `${what}: ${status} rate limited`, {
      status,
      ...(retryAfterS !== undefined ? { retryAfterS } : {}),
    });
  }
  return new ProviderError("upstream_status", `${what}: ${status} ${reasons.join(",")}`, {
    status,
  });
}

/** One authorised call; a 401 refreshes the access token and tries once more. */
async function call(
  deps: GoogleApiDeps,
  url: string,
  init: { method: string; body?: unknown },
  what: string,
): Promise<Response> {
  const attempt = async (token: string) =>
    deps.fetch(url, {
      method: init.method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: "application/json",
        ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
      },
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    });
  let res = await attempt(await deps.accessToken());
  if (res.status === 401 && deps.refreshAccessToken !== undefined) {
    await res.body?.cancel();
    res = await attempt(await deps.refreshAccessToken());
  }
  if (!res.ok) throw await googleErrorOf(res, what);
  return res;
}

/** The Calendar API v3 under the configured root (https://www.googleapis.com, or an emulator). */
const base = (deps: GoogleApiDeps) => `${deps.apiBaseUrl.replace(/\/+$/, "")}/calendar/v3`;

export interface EventsListing {
  events: GoogleEvent[];
  /** From the last page; absent when Google sent none. */
  nextSyncToken?: string;
  /** The calendar's title (the Events list's `summary`). */
  summary?: string;
}

/**
 * events.list on `primary` with `singleEvents=true`, every page followed. With `syncToken`
 * it is incremental (only the changed instances, deleted ones as `cancelled`; no time bounds:
 * Google refuses them with a sync token); without, it reads the window [timeMin, timeMax).
 */
export async function listEvents(
  deps: GoogleApiDeps,
  q: { syncToken: string } | { timeMin: number; timeMax: number },
): Promise<EventsListing> {
  const events: GoogleEvent[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const params = new URLSearchParams({ singleEvents: "true", maxResults: "250" });
    if ("syncToken" in q) params.set("syncToken", q.syncToken);
    else {
      params.set("timeMin", new Date(q.timeMin).toISOString());
      params.set("timeMax", new Date(q.timeMax).toISOString());
    }
    if (pageToken !== undefined) params.set("pageToken", pageToken);
    const res = await call(
      deps,
      `${base(deps)}/calendars/primary/events?${params}`,
      { method: "GET" },
      "events.list",
    );
    const parsed = googleEventsPage().safeParse(await res.json());
    if (!parsed.success) {
      throw new ProviderError("upstream_status", "events.list: the answer is not an Events list");
    }
    events.push(...parsed.data.items);
    if (parsed.data.nextPageToken === undefined) {
      return {
        events,
        ...(parsed.data.nextSyncToken !== undefined
          ? { nextSyncToken: parsed.data.nextSyncToken }
          : {}),
        ...(parsed.data.summary !== undefined ? { summary: parsed.data.summary } : {}),
      };
    }
    pageToken = parsed.data.nextPageToken;
  }
  throw new ProviderError("upstream_status", `events.list: more than ${MAX_PAGES} pages`);
}

const channelSchema = lazy(() =>
  z
    .object({
      id: z.string(),
      resourceId: z.string().optional(),
      expiration: z.union([z.string(), z.number()]).optional(),
    })
    .loose(),
);

/** events.watch on `primary`: a web_hook channel to `notificationUrl`, carrying `token`. */
export async function watchEvents(
  deps: GoogleApiDeps,
  req: PushRequest,
): Promise<PushSubscription> {
  const asked = deps.clock.now() + req.ttlMs;
  const res = await call(
    deps,
    `${base(deps)}/calendars/primary/events/watch`,
    {
      method: "POST",
      body: {
        id: req.channelId,
        type: "web_hook",
        address: req.notificationUrl,
        token: req.token,
        // Seconds: Google's channel `params.ttl`. It may grant less; `expiration` says.
        params: { ttl: String(Math.max(1, Math.floor(req.ttlMs / 1000))) },
      },
    },
    "events.watch",
  );
  const parsed = channelSchema().safeParse(await res.json());
  if (!parsed.success) {
    throw new ProviderError("upstream_status", "events.watch: the answer is not a Channel");
  }
  const expiration = Number(parsed.data.expiration);
  return {
    channelId: parsed.data.id,
    ...(parsed.data.resourceId !== undefined ? { resourceId: parsed.data.resourceId } : {}),
    expiresAt: Number.isFinite(expiration) && expiration > 0 ? expiration : asked,
  };
}

/** channels.stop; a channel Google no longer knows (404) is stopped already. */
export async function stopChannel(deps: GoogleApiDeps, channel: PushSubscription): Promise<void> {
  try {
    await call(
      deps,
      `${base(deps)}/channels/stop`,
      {
        method: "POST",
        body: {
          id: channel.channelId,
          ...(channel.resourceId !== undefined ? { resourceId: channel.resourceId } : {}),
        },
      },
      "channels.stop",
    );
  } catch (err) {
    if (err instanceof ProviderError && err.status === 404) return;
    throw err;
  }
}
