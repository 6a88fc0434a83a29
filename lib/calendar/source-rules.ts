import { isBlockedAddress } from "./address-ranges";

/**
 * Which calendar feed addresses Statuspilot will fetch. Feeds are fetched from inside the AWS
 * account, so an address on loopback, a private network, the link-local range (where the
 * instance metadata service answers) or any other range of `BLOCKED_RANGES` would let whoever
 * registers a source read what only the Lambda can reach (SSRF). The local stack serves its
 * feeds on 127.0.0.1 and allows them.
 */
export interface SourceAddressPolicy {
  /** True only in the local stack: loopback and private feed addresses are fetched too. */
  allowPrivate: boolean;
}

/** The schemes a feed may use; `webcal:` links are the same feed over `https:`. */
const FEED_PROTOCOLS = new Set(["http:", "https:"]);

/** Names that always mean this machine, whatever DNS says (RFC 6761). */
const isLocalName = (hostname: string): boolean => {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
};

/**
 * Why `url` can never be a feed: not a URL, or a scheme other than http(s). Undefined when the
 * address is usable; its host is checked separately (`hostProblem`), as it depends on where
 * Statuspilot runs.
 */
export function feedUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "must be an absolute http or https URL";
  }
  if (!FEED_PROTOCOLS.has(parsed.protocol)) {
    const hint = parsed.protocol === "webcal:" ? " (write the webcal: link with https:)" : "";
    return `must be an http or https URL, not ${parsed.protocol.slice(0, 20)}${hint}`;
  }
  return undefined;
}

/**
 * Why `url`'s host may not be fetched under `policy`: an IP address of a blocked range, or a
 * name for this machine. Names that merely resolve to such addresses are caught at fetch time.
 */
export function hostProblem(url: URL, policy: SourceAddressPolicy): string | undefined {
  if (policy.allowPrivate) return undefined;
  if (isLocalName(url.hostname)) return "must not name this machine (localhost)";
  if (isBlockedAddress(url.hostname)) {
    return "must not be a loopback, private, link-local or other non-public address";
  }
  return undefined;
}

/** Why `url` may not be registered as a feed under `policy`, or undefined. */
export function sourceUrlProblem(url: string, policy: SourceAddressPolicy): string | undefined {
  return feedUrlProblem(url) ?? hostProblem(new URL(url), policy);
}
