import { createHash } from "node:crypto";
import type { SealOwner, TokenVault } from "#lib/core/ports";
import type { SourceRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";

/**
 * A calendar's secret address is a credential (whoever has it reads the calendar), so it is
 * stored sealed to its owner, like tokens, and opened only by the sync when it fetches. What the
 * rest of the app needs is kept beside it: a fingerprint to compare a given address with the
 * stored one, and a redacted form to show. Addresses are checked (address policy, the first
 * fetch) before they are sealed, so nothing else needs them whole.
 */

/** A source's address as stored. */
export interface SealedAddress {
  urlSealed: string;
  urlDigest: string;
  urlShown: string;
}

export const sourceUrlOwner = (key: UserKey): SealOwner => ({
  team: key.team,
  user: key.user,
  field: "source_url",
});

/**
 * A fingerprint of the address, bound to its user and source, so equal addresses of two users
 * (or two sources) give different digests and no table of digests serves every user. It proves
 * a guessed address, which a secret address's random part makes hopeless.
 */
export function addressDigest(key: UserKey, sourceId: string, url: string): string {
  return createHash("sha256")
    .update(JSON.stringify(["source-url", key.team, key.user, sourceId, url]))
    .digest("base64url");
}

/** Shortest path segment or query whose last characters may be shown as a hint. */
const MIN_HINTED_SECRET = 16;
const HINT_CHARS = 4;

/**
 * What may be shown of an address: its scheme and host, and the last characters of its longest
 * path segment or query (usually the secret's random part: enough to tell two calendars apart,
 * far too little to read one). `https://calendar.example.com/…3f9a`.
 */
export function redactedAddress(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "(invalid address)";
  }
  const parts = [...parsed.pathname.split("/"), parsed.search.replace(/^\?/, "")];
  const longest = parts.reduce((a, b) => (b.length > a.length ? b : a), "");
  const hint = longest.length >= MIN_HINTED_SECRET ? longest.slice(-HINT_CHARS) : "";
  return `${parsed.protocol}//${parsed.host}/…${hint}`;
}

/** Seals a checked address for `sourceId` of `key`. */
export async function sealAddress(
  tokens: TokenVault,
  key: UserKey,
  sourceId: string,
  url: string,
): Promise<SealedAddress> {
  return {
    urlSealed: await tokens.seal(url, sourceUrlOwner(key)),
    urlDigest: addressDigest(key, sourceId, url),
    urlShown: redactedAddress(url),
  };
}

/** Whether the source's address is `url`, without opening it. */
export function hasAddress(key: UserKey, source: SourceRecord, url: string): boolean {
  if (source.url !== undefined) return source.url === url;
  return source.urlDigest === addressDigest(key, source.id, url);
}

/** The source's address in its redacted form. */
export function shownAddress(source: SourceRecord): string {
  if (source.urlShown !== undefined) return source.urlShown;
  return source.url !== undefined ? redactedAddress(source.url) : "(unknown address)";
}

/** The address in clear, for the fetch: the sync alone calls this. */
export async function openAddress(
  tokens: TokenVault,
  key: UserKey,
  source: SourceRecord,
): Promise<string> {
  if (source.urlSealed !== undefined) return tokens.open(source.urlSealed, sourceUrlOwner(key));
  if (source.url !== undefined) return source.url;
  throw new Error(`source ${source.id} has no address`);
}

/** Whether the source still holds its address in clear (written before addresses were sealed). */
export const hasPlainAddress = (source: SourceRecord): boolean =>
  source.url !== undefined && source.urlSealed === undefined;
