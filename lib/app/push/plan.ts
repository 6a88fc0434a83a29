import { fnv1a } from "#lib/core/hash";
import { POLL_INTERVAL_MS } from "#lib/core/poll";
import type { SourcePush, SourceRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";

/**
 * When a connected source's push channel needs work, as a pure decision over its record and the
 * time. The upkeep (upkeep.ts) acts on it; a table test states the rules.
 *
 * - No channel: create one.
 * - Lapsed (expired, or a safety-net poll found changes that no push announced): recreate it,
 *   without relying on the old one. Silence alone is no sign: a calendar nobody edits for a
 *   week sends nothing, so only the safety read's unannounced changes (`silentSince`) count.
 * - Renewals failed MAX_RENEW_FAILURES times in a row: recreate it too (a fresh channel may work
 *   where renewing the old one does not), though it still lives: it shows "renewing", and the
 *   poll reads its source every time until a renewal works.
 * - A lifecycle notification asked for it (Graph): `subscriptionRemoved` counts as lapsed,
 *   `reauthorizationRequired` renews now.
 * - Past RENEW_AT of the lifetime the provider granted (measured from its creation; earlier for
 *   a short one, to leave MIN_RENEW_MARGIN_MS): renew it. A failed upkeep is
 *   retried after UPKEEP_RETRY_MS (nextUpkeepAt) until it succeeds or the channel lapses.
 *
 * Each upkeep runs when the source's entry in the due index says (nextUpkeepAt, written after
 * every upkeep; lib/app/push/schedule.ts runs them).
 */

/** Renew at this fraction of a channel's lifetime, well ahead of its expiry. */
export const RENEW_AT = 0.8;
/**
 * The least time a renewal leaves before the expiry, when the lifetime allows: a provider may
 * grant a channel far less than asked (90 s), whose 20% would leave the renewal seconds.
 */
export const MIN_RENEW_MARGIN_MS = 30_000;
/** Renewal attempts that fail in a row before the channel counts as lapsed. */
export const MAX_RENEW_FAILURES = 3;
/** A push-backed source is read by the poll only this often: the push does the rest. */
export const SAFETY_POLL_MS = 6 * 3_600_000;
/** The lifetime asked for a new channel: Google's default and Graph's maximum are ~7 days. */
export const DEFAULT_PUSH_TTL_MS = 7 * 86_400_000 - 3_600_000;

/** How long the next upkeep waits after 1, 2, 3 or more failed upkeeps in a row. */
export const UPKEEP_RETRY_MS = [15 * 60_000, 3_600_000, 3 * 3_600_000] as const;

export type LapseReason = "expired" | "renewal_failed" | "silent" | "removed";

export type PushStep =
  | { kind: "none"; nextAt: number }
  | { kind: "create" }
  | { kind: "renew" }
  | { kind: "recreate"; reason: LapseReason };

/**
 * When a channel created at `createdAt` and ending at `expiresAt` (the lifetime the provider
 * granted, whatever was asked) is renewed: at RENEW_AT of that lifetime, or earlier so as to
 * leave MIN_RENEW_MARGIN_MS before the expiry, but never in the first half of its life (a
 * channel granted seconds is not renewed the instant it is made).
 */
export function renewAtOf(push: Pick<SourcePush, "createdAt" | "expiresAt">): number {
  const lifetime = push.expiresAt - push.createdAt;
  const byFraction = Math.floor(lifetime * RENEW_AT);
  const byMargin = lifetime - MIN_RENEW_MARGIN_MS;
  return push.createdAt + Math.max(Math.floor(lifetime / 2), Math.min(byFraction, byMargin));
}

/** Why the channel counts as lapsed at `now`, or undefined while it is alive. */
export function lapseOf(push: SourcePush, now: number): LapseReason | undefined {
  // The provider said it removed the subscription (Graph subscriptionRemoved).
  if (push.requested === "recreate") return "removed";
  if (push.expiresAt <= now) return "expired";
  if (push.silentSince !== undefined) return "silent";
  return undefined;
}

/** What the channel needs at `now`. */
export function pushStep(push: SourcePush | undefined, now: number): PushStep {
  if (push === undefined) return { kind: "create" };
  const lapse = lapseOf(push, now);
  if (lapse !== undefined) return { kind: "recreate", reason: lapse };
  if ((push.failures ?? 0) >= MAX_RENEW_FAILURES)
    return { kind: "recreate", reason: "renewal_failed" };
  // The provider asked for a renewal now (Graph reauthorizationRequired).
  if (push.requested === "renew") return { kind: "renew" };
  const renewAt = renewAtOf(push);
  if (now >= renewAt) return { kind: "renew" };
  return { kind: "none", nextAt: renewAt };
}

/**
 * When the source's next upkeep is due, after one at `now` that left `push` with `failures`
 * failed upkeeps in a row: after a failure, the retry's wait (UPKEEP_RETRY_MS), but no later
 * than a live channel's expiry (where it lapses, to be recreated at once); a channel already
 * lapsed, or none, is retried after the shortest wait (its source is polled that often anyway).
 * Without a failure, the instant the channel next needs work (its renewal at RENEW_AT), or
 * `now` when it needs work already.
 */
export function nextUpkeepAt(push: SourcePush | undefined, failures: number, now: number): number {
  if (failures > 0) {
    if (push === undefined || lapseOf(push, now) !== undefined) return now + UPKEEP_RETRY_MS[0];
    const wait = UPKEEP_RETRY_MS[Math.min(failures, UPKEEP_RETRY_MS.length) - 1] ?? 0;
    return Math.min(now + wait, push.expiresAt);
  }
  const step = pushStep(push, now);
  return step.kind === "none" ? step.nextAt : now;
}

/**
 * Whether the poll finds the source's upkeep overdue at `now`, so its schedule entry may be
 * missing (written before entries existed, or lost): no channel, a lapsed one, or one past the
 * middle of the span between its renewal and its expiry, well after its upkeep was due.
 */
export function upkeepOverdue(push: SourcePush | undefined, now: number): boolean {
  if (push === undefined || lapseOf(push, now) !== undefined) return true;
  const renewAt = renewAtOf(push);
  return now >= renewAt + Math.floor((push.expiresAt - renewAt) / 2);
}

/** The poll's visits of a source (POLL_INTERVAL_MS apart) in each SAFETY_POLL_MS. */
export const SAFETY_POLL_VISITS = SAFETY_POLL_MS / POLL_INTERVAL_MS;

/**
 * Which of every SAFETY_POLL_VISITS consecutive poll visits reads a source whose channel lives
 * (0 to SAFETY_POLL_VISITS - 1): FNV-1a of the source's identity, so the safety-net reads of
 * many sources spread over the 6 hours, and a read never moves it (nothing is written for it).
 */
export function safetyVisitOf(key: UserKey, sourceId: string): number {
  return fnv1a(`${key.team}/${key.user}/${sourceId}`) % SAFETY_POLL_VISITS;
}

/** What the poll index holds of a source that the poll's choice looks at. */
export type PolledSource = Pick<
  SourceRecord,
  "id" | "refreshTokenSealed" | "reconnectSince" | "push"
>;

/**
 * Whether the poll's visit number `visit` (lib/core/poll.ts pollVisitOf) sends a check of a
 * source at `now`, decided from the poll index alone:
 * - a source read through its address (ICS): every visit, every 15 minutes;
 * - a connected source whose account must be connected again: never (nothing can read it);
 * - a connected source without a working channel (none, lapsed, or renewals failed
 *   MAX_RENEW_FAILURES times), or whose upkeep is overdue (upkeepOverdue: its check asks the
 *   repair): every visit, and the check reads;
 * - a live channel's source: only at its safety-net visit (safetyVisitOf), one visit in
 *   SAFETY_POLL_VISITS, every 6 hours; pushes announce the changes in between.
 * A check of a connected source that is sent always reads the calendar.
 */
export function pollChecks(
  source: PolledSource,
  key: UserKey,
  visit: number,
  now: number,
): boolean {
  if (source.refreshTokenSealed === undefined) return true;
  if (source.reconnectSince !== undefined) return false;
  const push = source.push;
  if (push === undefined || lapseOf(push, now) !== undefined) return true;
  if ((push.failures ?? 0) >= MAX_RENEW_FAILURES || upkeepOverdue(push, now)) return true;
  const at = ((visit % SAFETY_POLL_VISITS) + SAFETY_POLL_VISITS) % SAFETY_POLL_VISITS;
  return at === safetyVisitOf(key, source.id);
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
