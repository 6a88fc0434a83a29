import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * The MACs of the front door. One secret serves the install state, the session cookie and the
 * CSRF tokens; each use prefixes its own label, so no MAC of one use is valid for another.
 */
export type MacLabel = "oauth-state" | "session" | "csrf" | "settings-link";

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

/** Compares two strings in time that depends only on their lengths, never on where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  // Compare against itself on a length mismatch so the work done does not leak the match.
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}
