import { isIP } from "node:net";
import { isBlockedAddress } from "./address-ranges";
import { createPinnedFetch, type PinnedFetch } from "./pinned-connection";
import { feedUrlProblem, hostProblem, type SourceAddressPolicy } from "./source-rules";

/** Resolves a host name to every address it has (like `dns.lookup` with `all: true`). */
export type ResolveHost = (hostname: string) => Promise<string[]>;

/** Where feeds may be fetched from, and how names are resolved to check it. */
export interface FeedAddressGuard {
  policy: SourceAddressPolicy;
  resolveHost: ResolveHost;
  /**
   * How a checked hop is requested: over a connection to the checked addresses only. node:http(s)
   * unless a test puts a recorder here; `fetch` itself is not used, as it would resolve again.
   */
  fetchPinned?: PinnedFetch;
}

const systemPinnedFetch = createPinnedFetch();

/** Redirects followed per fetch; each hop's address is checked like the first. */
export const MAX_FEED_REDIRECTS = 5;

/** Why a feed was not fetched at all: its address (or a redirect's) is not allowed. */
export type FeedRefusal = {
  kind: "refused";
  reason: "unsupported_url" | "private_address" | "too_many_redirects";
  message: string;
};

export type FeedFetchResult = { kind: "response"; response: Response } | FeedRefusal;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Waits for `promise` unless `signal` aborts first (DNS lookups take no signal). */
function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      },
    );
  });
}

/** A hop that may be requested: anywhere (no guard), or only at the addresses checked. */
type Cleared = { kind: "anywhere" } | { kind: "pinned"; addresses: string[] };

/**
 * Why `url` may not be fetched (its scheme, its host, or an address its name resolves to), or
 * where it may be: the name is resolved once here, and the connection goes to what was checked.
 */
async function clearHop(
  url: URL,
  guard: FeedAddressGuard | undefined,
  signal: AbortSignal,
): Promise<FeedRefusal | Cleared> {
  const scheme = feedUrlProblem(url.href);
  if (scheme !== undefined) return { kind: "refused", reason: "unsupported_url", message: scheme };
  if (guard === undefined || guard.policy.allowPrivate) return { kind: "anywhere" };
  const host = hostProblem(url, guard.policy);
  if (host !== undefined) return { kind: "refused", reason: "private_address", message: host };
  // An IP literal is its own (already checked) address; a name is resolved here, once.
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  const addresses =
    isIP(literal) !== 0 ? [literal] : await unlessAborted(guard.resolveHost(url.hostname), signal);
  if (addresses.some(isBlockedAddress)) {
    return {
      kind: "refused",
      reason: "private_address",
      message:
        "its host name resolves to a loopback, private, link-local or other non-public address",
    };
  }
  return { kind: "pinned", addresses };
}

/**
 * GETs a feed, following redirects by hand so that every hop's address is checked before it is
 * requested: on AWS a public feed must not redirect (or resolve) into the account's network.
 * Under a guard each hop's name is resolved once and the request connects to exactly the
 * addresses checked (`guard.fetchPinned`), never resolving it again. Network failures throw, as
 * `fetch` does.
 */
export async function fetchFeed(
  fetchFn: typeof fetch,
  url: string,
  init: { headers: Record<string, string>; signal: AbortSignal },
  guard: FeedAddressGuard | undefined,
): Promise<FeedFetchResult> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { kind: "refused", reason: "unsupported_url", message: "not an absolute URL" };
  }
  for (let hop = 0; hop <= MAX_FEED_REDIRECTS; hop++) {
    const cleared = await clearHop(target, guard, init.signal);
    if (cleared.kind === "refused") return cleared;
    const response =
      cleared.kind === "pinned"
        ? await (guard?.fetchPinned ?? systemPinnedFetch)(target, cleared.addresses, init)
        : await fetchFn(target.href, { ...init, redirect: "manual" });
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null) return { kind: "response", response };
    await response.body?.cancel().catch(() => undefined);
    try {
      target = new URL(location, target);
    } catch {
      return { kind: "refused", reason: "unsupported_url", message: "a redirect to no URL" };
    }
  }
  return {
    kind: "refused",
    reason: "too_many_redirects",
    message: `more than ${MAX_FEED_REDIRECTS} redirects`,
  };
}
