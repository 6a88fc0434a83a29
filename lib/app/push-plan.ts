import type { SourcePush } from "#lib/core/records";

/**
 * When a connected source's push channel needs work, as a pure decision over its record and the
 * time. The upkeep (push-upkeep.ts) acts on it; a table test states the rules.
 *
 * - No channel: create one.
 * - Lapsed (expired; renewals failed MAX_RENEW_FAILURES times in a row; a safety-net poll found
 *   changes that no push announced; or no push for longer than the channel's whole lifetime):
 *   recreate it, without relying on the old one.
 * - A lifecycle notification asked for it (Graph): `subscriptionRemoved` counts as lapsed,
 *   `reauthorizationRequired` renews now.
 * - Past RENEW_AT of its lifetime (measured from its creation): renew it. A failed renewal is
 *   retried at the next upkeep (every poll period) until it succeeds or the channel lapses.
 */

/** Renew at this fraction of a channel's lifetime, well ahead of its expiry. */
export const RENEW_AT = 0.8;
/** Renewal attempts that fail in a row before the channel counts as lapsed. */
export const MAX_RENEW_FAILURES = 3;
/** A push-backed source is read by the poll only this often: the push does the rest. */
export const SAFETY_POLL_MS = 6 * 3_600_000;
/** The lifetime asked for a new channel: Google's default and Graph's maximum are ~7 days. */
export const DEFAULT_PUSH_TTL_MS = 7 * 86_400_000 - 3_600_000;

export type LapseReason = "expired" | "renewal_failed" | "silent" | "no_message" | "removed";

export type PushStep =
  | { kind: "none"; nextAt: number }
  | { kind: "create" }
  | { kind: "renew" }
  | { kind: "recreate"; reason: LapseReason };

/** When a channel created at `createdAt` and ending at `expiresAt` is renewed. */
export const renewAtOf = (push: Pick<SourcePush, "createdAt" | "expiresAt">): number =>
  push.createdAt + Math.floor((push.expiresAt - push.createdAt) * RENEW_AT);

/** Why the channel counts as lapsed at `now`, or undefined while it is alive. */
export function lapseOf(push: SourcePush, now: number): LapseReason | undefined {
  // The provider said it removed the subscription (Graph subscriptionRemoved).
  if (push.requested === "recreate") return "removed";
  if (push.expiresAt <= now) return "expired";
  if ((push.failures ?? 0) >= MAX_RENEW_FAILURES) return "renewal_failed";
  if (push.silentSince !== undefined) return "silent";
  const lifetime = push.expiresAt - push.createdAt;
  if (now - (push.lastPushAt ?? push.createdAt) > lifetime) return "no_message";
  return undefined;
}

/** What the channel needs at `now`. */
export function pushStep(push: SourcePush | undefined, now: number): PushStep {
  if (push === undefined) return { kind: "create" };
  const lapse = lapseOf(push, now);
  if (lapse !== undefined) return { kind: "recreate", reason: lapse };
  // The provider asked for a renewal now (Graph reauthorizationRequired).
  if (push.requested === "renew") return { kind: "renew" };
  const renewAt = renewAtOf(push);
  if (now >= renewAt) return { kind: "renew" };
  return { kind: "none", nextAt: renewAt };
}

/**
 * Whether the poll reads a source at `now`: always without a live channel; with one, only
 * when the last read is SAFETY_POLL_MS old (pushes announce the changes in between).
 */
export function pollReads(
  push: SourcePush | undefined,
  lastSyncedAt: number | undefined,
  now: number,
): boolean {
  if (push === undefined || lapseOf(push, now) !== undefined) return true;
  return lastSyncedAt === undefined || now - lastSyncedAt >= SAFETY_POLL_MS;
}

/** How a source's push shows on the settings page and in `statuspilot status`. */
export type PushState = "none" | "live" | "renewing" | "lapsed" | "reconnect";

export function pushStateOf(
  source: { push?: SourcePush; reconnectSince?: number },
  now: number,
): { state: PushState; expiresAt?: number } {
  if (source.reconnectSince !== undefined) return { state: "reconnect" };
  const push = source.push;
  if (push === undefined) return { state: "none" };
  const expiresAt = push.expiresAt;
  if (lapseOf(push, now) !== undefined) return { state: "lapsed", expiresAt };
  if ((push.failures ?? 0) > 0 || now >= renewAtOf(push)) return { state: "renewing", expiresAt };
  return { state: "live", expiresAt };
}
