/**
 * Counts the KMS requests the handlers make, through the vault the composition root would
 * build: each function's instance keeps what it opened (lib/app/opened-values.ts), and each call
 * that reaches the vault below it is one KMS request (a seal an Encrypt, an open a Decrypt;
 * values sealed before owners were bound would cost a second Decrypt, and the bench holds none).
 */
import { OpenedValueCache } from "#lib/app/opened-values";
import type { Clock } from "#lib/core/clock";
import type { TokenVault } from "#lib/core/ports";
import { meteredFunction } from "./dynamo-meter";
import { instanceOf } from "./lambda-meter";

export interface KmsCounts {
  encrypt: number;
  decrypt: number;
  /** Seals and opens the handlers asked for: the KMS requests without the cache. */
  asked: { encrypt: number; decrypt: number };
  /** By function (`setup` outside any invocation). */
  byFunction: Record<string, { encrypt: number; decrypt: number }>;
}

const zero = (): KmsCounts => ({
  encrypt: 0,
  decrypt: 0,
  asked: { encrypt: 0, decrypt: 0 },
  byFunction: {},
});
let counts = zero();

function count(fn: string, action: "encrypt" | "decrypt"): void {
  counts[action]++;
  const row = counts.byFunction[fn] ?? { encrypt: 0, decrypt: 0 };
  row[action]++;
  counts.byFunction[fn] = row;
}

/**
 * `vault` (the KMS stand-in) behind one cache per function instance, as deployed: one App is
 * shared by every function here, so the caches are kept apart by the running function and its
 * instance in the lambda meter's model; a cold start begins with an empty cache.
 */
export function meteredVault(vault: TokenVault, clock: Clock): TokenVault {
  const caches = new Map<string, { instance: number; cache: OpenedValueCache }>();
  const cacheOf = (): OpenedValueCache => {
    const fn = meteredFunction() ?? "setup";
    const instance = instanceOf(fn);
    const kept = caches.get(fn);
    if (kept !== undefined && kept.instance === instance) return kept.cache;
    const counted: TokenVault = {
      seal: (plain, owner) => {
        count(fn, "encrypt");
        return vault.seal(plain, owner);
      },
      open: (sealed, owner) => {
        count(fn, "decrypt");
        return vault.open(sealed, owner);
      },
    };
    const cache = new OpenedValueCache(counted, clock);
    caches.set(fn, { instance, cache });
    return cache;
  };
  return {
    seal: (plain, owner) => {
      counts.asked.encrypt++;
      return cacheOf().seal(plain, owner);
    },
    open: (sealed, owner) => {
      counts.asked.decrypt++;
      return cacheOf().open(sealed, owner);
    },
  };
}

export const kmsCounts = (): KmsCounts => structuredClone(counts);

export function resetKmsCounts(): void {
  counts = zero();
}
