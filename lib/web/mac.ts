import { createHmac, randomBytes } from "node:crypto";
import type { Clock } from "#lib/core/clock";

/**
 * The MACs of the front door. One secret serves the install state, the session cookie and the
 * CSRF tokens; each use prefixes its own label, so no MAC of one use is valid for another.
 */
export type MacLabel = "oauth-state" | "session" | "csrf";

/** Below this a secret is a placeholder, not a key: refuse it at construction. */
export const MIN_KEY_LENGTH = 32;

export function checkKey(key: string, what: string): void {
  if (key.length < MIN_KEY_LENGTH) {
    throw new RangeError(`${what}: the key must have at least ${MIN_KEY_LENGTH} characters`);
  }
}

/** HMAC-SHA256 of `label:data`, base64url (43 characters). */
export function macOf(key: string, label: MacLabel, data: string): string {
  return createHmac("sha256", key).update(`${label}:${data}`).digest("base64url");
}

/** One constant-time comparison for the webhooks' signatures and the front door's MACs. */
export { constantTimeEqual } from "#lib/http/signature";

/**
 * What each signer of the front door's tokens (install state, session cookie)
 * holds: its key, refused below MIN_KEY_LENGTH at construction; the injected clock; and the
 * source of its random bytes (crypto's, unless a test fixes them).
 */
export abstract class MacSigner {
  protected readonly key: string;
  protected readonly clock: Clock;
  protected readonly random: (size: number) => Uint8Array;

  protected constructor(
    opts: { key: string; clock: Clock; random?: (size: number) => Uint8Array },
    what: string,
  ) {
    checkKey(opts.key, what);
    this.key = opts.key;
    this.clock = opts.clock;
    this.random = opts.random ?? ((size) => randomBytes(size));
  }
}
