import { ProviderError, SyncError } from "./errors";
import type { ApiDeps } from "./provider";

/**
 * One call to Microsoft Graph: the bearer token, a timeout, and the answers mapped to the
 * provider errors. A 429 is retried in place when its `Retry-After` is short (Graph asks the
 * caller to wait that long); a longer one is thrown as `rate_limited` with `retryAfterS`, for the
 * queue to retry later. Links Graph hands back (`@odata.nextLink`, `@odata.deltaLink`) are
 * followed only on the configured Graph origin, so the token never goes elsewhere.
 */
export interface GraphHttpOptions {
  /** The Graph base, e.g. `https://graph.microsoft.com/v1.0`. */
  graphBaseUrl: string;
  /** One request's limit, ms (default 10 s). */
  timeoutMs?: number;
  /** The longest `Retry-After` waited out in place, s (default 5); longer ones throw. */
  maxInlineWaitS?: number;
  /** How many throttled answers are waited out in place per call (default 2). */
  maxInlineRetries?: number;
  /** Waits `ms` (a timer; injected so tests need not wait). */
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Seconds of a `Retry-After` header (delta-seconds or an HTTP date), at least 1. */
export function retryAfterSeconds(header: string | null, now: number): number {
  if (header === null) return 1;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(1, Math.ceil(seconds));
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.max(1, Math.ceil((at - now) / 1000)) : 1;
}

/** Graph's error code from its body, if the body is Graph's `{error: {code}}`. */
async function graphErrorCode(res: Response): Promise<string | undefined> {
  try {
    const body = (await res.json()) as { error?: { code?: unknown } };
    return typeof body.error?.code === "string" ? body.error.code : undefined;
  } catch {
    return undefined;
  }
}

export function sameOrigin(url: string, base: string): boolean {
  try {
    return new URL(url).origin === new URL(base).origin;
  } catch {
    return false;
  }
}

/** The shared API deps, and a re-login that forces a new access token after a 401. */
export type GraphCallDeps = ApiDeps & { refreshAccessToken?(): Promise<string> };

/** Sends one Graph request and answers its JSON body (undefined for 204). */
export async function graphCall(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string> },
  deps: GraphCallDeps,
  opts: GraphHttpOptions,
): Promise<unknown> {
  if (!sameOrigin(url, opts.graphBaseUrl)) {
    throw new ProviderError("upstream_status", "Graph handed back a link outside its own origin");
  }
  const sleep = opts.sleep ?? realSleep;
  const maxRetries = opts.maxInlineRetries ?? 2;
  let refreshed = false;
  let token = await deps.accessToken();
  let throttled = 0;
  for (;;) {
    let res: Response;
    try {
      res = await deps.fetch(url, {
        method: init.method ?? "GET",
        headers: {
          authorization: `Bearer ${token}`,
          accept: "application/json",
          ...(init.body === undefined ? {} : { "content-type": "application/json" }),
          ...init.headers,
        },
        ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
        signal: AbortSignal.timeout(opts.timeoutMs ?? 10_000),
      });
    } catch (error: unknown) {
      const timedOut = error instanceof Error && error.name === "TimeoutError";
      throw new SyncError(
        timedOut ? "timeout" : "fetch_failed",
        timedOut ? "Graph did not answer in time" : "Graph could not be reached",
        undefined,
        { cause: error },
      );
    }
    if (res.status === 429 || res.status === 503) {
      const retryAfterS = retryAfterSeconds(res.headers.get("retry-after"), deps.clock.now());
      await res.body?.cancel().catch(() => undefined);
      if (throttled++ < maxRetries && retryAfterS <= (opts.maxInlineWaitS ?? 5)) {
        await sleep(retryAfterS * 1000);
        continue;
      }
      throw new ProviderError("rate_limited", `Graph answered ${res.status}`, {
        status: res.status,
        retryAfterS,
      });
    }
    if (res.status === 401 && !refreshed && deps.refreshAccessToken !== undefined) {
      // An access token revoked or expired early: one more try with a fresh one.
      await res.body?.cancel().catch(() => undefined);
      refreshed = true;
      token = await deps.refreshAccessToken();
      continue;
    }
    if (res.status === 204) return undefined;
    if (res.ok) return res.json();
    const code = await graphErrorCode(res);
    const detail = `Graph answered ${res.status}${code ? ` ${code}` : ""}`;
    if (res.status === 401) throw new ProviderError("unauthorized", detail, { status: 401 });
    if (res.status === 410) throw new ProviderError("sync_token_expired", detail, { status: 410 });
    throw new ProviderError("upstream_status", detail, { status: res.status });
  }
}
