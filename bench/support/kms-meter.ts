/**
 * Counts the KMS requests the handlers make, through the vault the composition root would
 * build: each function's instance keeps what it opened (lib/app/secrets/opened-values.ts), and each call
 * that reaches the vault below it is one KMS request (a seal an Encrypt, an open a Decrypt;
 * values sealed before owners were bound would cost a second Decrypt, and the bench holds none).
 * Beside it, the same seals and opens go through a second cache per function that no cold start
 * empties: the requests there would be if the deployment's other work kept each function warm
 * (a run of one user leaves its functions idle for hours between invocations).
 */
import { OpenedValueCache } from "#lib/app/secrets/opened-values";
import type { Clock } from "#lib/core/clock";
import type { TokenVault } from "#lib/core/ports";
import { meteredFunction } from "./dynamo-meter";
import { instanceOf } from "./lambda-meter";

export interface KmsTally {
  encrypt: number;
  decrypt: number;
  /** Seals and opens the handlers asked for: the KMS requests there would be without the cache. */
  asked: { encrypt: number; decrypt: number };
}

export interface KmsCounts extends KmsTally {
  /** By function (`setup` outside any invocation). */
  byFunction: Record<string, KmsTally>;
  /** By function, the requests there would be were each function's one instance never replaced. */
  warmByFunction: Record<string, { encrypt: number; decrypt: number }>;
}

const tally = (): KmsTally => ({ encrypt: 0, decrypt: 0, asked: { encrypt: 0, decrypt: 0 } });
const noCounts = (): KmsCounts => ({ ...tally(), byFunction: {}, warmByFunction: {} });
let counts: KmsCounts = noCounts();

function countWarm(fn: string, action: "encrypt" | "decrypt"): void {
  const row = counts.warmByFunction[fn] ?? { encrypt: 0, decrypt: 0 };
  counts.warmByFunction[fn] = row;
  row[action]++;
}

/** A seal or open `fn` asked of the cache, or one the cache made of the stand-in (KMS). */
function count(fn: string, action: "encrypt" | "decrypt", by: "asked" | "made"): void {
  const row = counts.byFunction[fn] ?? tally();
  counts.byFunction[fn] = row;
  for (const t of [counts, row]) {
    if (by === "asked") t.asked[action]++;
    else t[action]++;
  }
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
        count(fn, "encrypt", "made");
        return vault.seal(plain, owner);
      },
      open: (sealed, owner) => {
        count(fn, "decrypt", "made");
        return vault.open(sealed, owner);
      },
    };
    const cache = new OpenedValueCache(counted, clock);
    caches.set(fn, { instance, cache });
    return cache;
  };
  // The always-warm caches answer with what the modelled instance's cache gave (set just before
  // each call: a cache calls its vault at once, before any await), counting what reaches them.
  let answer: Promise<string> = Promise.resolve("");
  const warmCaches = new Map<string, OpenedValueCache>();
  const warmOf = (fn: string): OpenedValueCache => {
    const kept = warmCaches.get(fn);
    if (kept !== undefined) return kept;
    const cache = new OpenedValueCache(
      {
        seal: () => {
          countWarm(fn, "encrypt");
          return answer;
        },
        open: () => {
          countWarm(fn, "decrypt");
          return answer;
        },
      },
      clock,
    );
    warmCaches.set(fn, cache);
    return cache;
  };
  return {
    seal: (plain, owner) => {
      const fn = meteredFunction() ?? "setup";
      const sealed = cacheOf().seal(plain, owner);
      count(fn, "encrypt", "asked");
      answer = sealed;
      warmOf(fn)
        .seal(plain, owner)
        .catch(() => undefined);
      return sealed;
    },
    open: (sealed, owner) => {
      const fn = meteredFunction() ?? "setup";
      const plain = cacheOf().open(sealed, owner);
      count(fn, "decrypt", "asked");
      answer = plain;
      warmOf(fn)
        .open(sealed, owner)
        .catch(() => undefined);
      return plain;
    },
  };
}

export const kmsCounts = (): KmsCounts => structuredClone(counts);

export function resetKmsCounts(): void {
  counts = noCounts();
}
