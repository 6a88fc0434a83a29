import { createHmac, timingSafeEqual } from "node:crypto";
import { StaleTimestampError, WebhookError } from "./errors";

/** Requests further than this from "now" are refused, so a captured request cannot be replayed. */
export const SIGNATURE_WINDOW_S = 300;

/** `v0=` + hex HMAC-SHA256 over `v0:<timestamp>:<raw body>`: the service's (and our generic hook's) scheme. */
export function signV0(secret: string, timestamp: string | number, rawBody: string): string {
  const mac = createHmac("sha256", secret).update(`v0:${timestamp}:${rawBody}`).digest("hex");
  return `v0=${mac}`;
}

/** Compares two strings in time that depends only on their length, never on where they differ. */
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

/** Why a well-formed, fresh signature is refused (a hook for an unbound id says the same). */
export const BAD_SIGNATURE = "signature does not match the body";

export interface SignedRequest {
  rawBody: string;
  timestamp: string | undefined;
  signature: string | undefined;
}

/**
 * Verifies a `v0` signature and its timestamp window. Throws a WebhookError saying why; returns
 * nothing on success. `nowMs` comes from the injected clock.
 */
export function verifyV0(
  secret: string,
  request: SignedRequest,
  nowMs: number,
  windowS = SIGNATURE_WINDOW_S,
): void {
  const { timestamp, signature, rawBody } = request;
  if (!timestamp || !signature) {
    throw new WebhookError("missing_signature", "missing timestamp or signature header");
  }
  if (!/^\d{1,12}$/.test(timestamp)) {
    throw new WebhookError("malformed_signature", "timestamp header is not epoch seconds");
  }
  if (!/^v0=[0-9a-f]{64}$/.test(signature)) {
    throw new WebhookError("malformed_signature", "signature header is not v0=<64 hex>");
  }
  const ageS = Math.abs(Math.floor(nowMs / 1000) - Number(timestamp));
  if (ageS > windowS) throw new StaleTimestampError(ageS);
  if (!constantTimeEqual(signV0(secret, timestamp, rawBody), signature)) {
    throw new WebhookError("bad_signature", BAD_SIGNATURE);
  }
}

/** Header lookup that ignores case, as API Gateway v2 lower-cases but local callers may not. */
export function header(
  headers: Record<string, string | undefined> | undefined,
  name: string,
): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === wanted) return value;
  }
  return undefined;
}
