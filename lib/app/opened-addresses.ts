import type { Clock } from "#lib/core/clock";
import type { TokenVault } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import type { KnownSource } from "./contracts";
import { openAddress } from "./source-address";

/** How long an opened address is kept: a warm sync worker sees each source every 15 minutes. */
const KEPT_MS = 6 * 60 * 60_000;
/** Most addresses kept at once; the oldest goes first. */
const MAX_KEPT = 5_000;

/**
 * Opens the addresses the poll carries as stored (sealed to their owner), keeping each opened
 * one in the container's memory for a while: a quick check of an unchanged feed costs no
 * DynamoDB call, and a KMS call for each of a source's 96 daily checks would cost more than the
 * check itself. The cache is keyed by the owner and the sealed value, so a sealed address moved
 * onto another user's item is never answered from it: that owner's open goes to the vault, which
 * refuses it.
 */
export function cachedAddressOpener(
  tokens: TokenVault,
  clock: Clock,
): (stored: KnownSource, of: { key: UserKey; sourceId: string }) => Promise<string> {
  const kept = new Map<string, { url: string; until: number }>();
  return async (stored, { key, sourceId }) => {
    if (stored.urlSealed === undefined) {
      return openAddress(tokens, key, { ...stored, id: sourceId });
    }
    const cacheKey = JSON.stringify([key.team, key.user, stored.urlSealed]);
    const now = clock.now();
    const hit = kept.get(cacheKey);
    if (hit !== undefined && hit.until > now) return hit.url;
    const url = await openAddress(tokens, key, { ...stored, id: sourceId });
    kept.delete(cacheKey);
    kept.set(cacheKey, { url, until: now + KEPT_MS });
    if (kept.size > MAX_KEPT) kept.delete(kept.keys().next().value as string);
    return url;
  };
}
