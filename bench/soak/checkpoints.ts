import type { StatusValue } from "#lib/core/types";
import { changeInstants, expectedStatusAt, sameShown } from "./oracle";
import type { UserPlan } from "./scenario";

/** One instant at which the soak reads a user's profile, and what it must show then. */
export interface Checkpoint {
  user: string;
  /** When the profile is read: `since` plus the allowed lateness. */
  at: number;
  /** When the user's desired status last changed (or observation began). */
  since: number;
  /** When it may change next: `expected` holds from `since` until then. */
  until: number;
  expected: StatusValue;
  /**
   * `calendar`: an ordinary instant with no manual status about. `after-manual`: the first
   * block start after the user's own status ended (cleared or expired), by which Statuspilot
   * must have noticed, even when the clear's `user_change` was lost.
   */
  kind: "calendar" | "after-manual";
}

export interface CheckpointWindow {
  /** Observation begins (the faults start). */
  from: number;
  /** The run ends. */
  until: number;
  /** How late a change may show and still count as on time. */
  lateMs: number;
}

/** When the user's own status stops standing: their clear or its expiration, if either. */
export function manualEnd(user: UserPlan): number | undefined {
  const m = user.manual;
  if (!m) return undefined;
  const expires = m.status.expiration > 0 ? m.status.expiration * 1000 : Number.POSITIVE_INFINITY;
  const end = Math.min(expires, m.clearAt ?? Number.POSITIVE_INFINITY);
  return Number.isFinite(end) ? end : undefined;
}

/**
 * The checkpoints of one user. Between two consecutive change instants a and b the desired
 * status is constant, so when b - a exceeds the lateness the profile is read at a + lateness.
 * While a manual status stands, and until the first block start after it ended, nothing is
 * read but that block start (kind `after-manual`): the design only promises the override is
 * re-checked when a write is due.
 */
export function userCheckpoints(user: UserPlan, w: CheckpointWindow): Checkpoint[] {
  const instants = [
    w.from,
    ...changeInstants(user, w.until).filter((t) => t > w.from && t < w.until),
    w.until,
  ];
  const out: Checkpoint[] = [];
  let quietFrom = Number.POSITIVE_INFINITY;
  let quietUntil = Number.NEGATIVE_INFINITY;
  if (user.manual) {
    quietFrom = user.manual.at;
    const ended = manualEnd(user);
    const resume = ended === undefined ? undefined : firstBlockStart(user, instants, ended, w);
    quietUntil = resume === undefined ? Number.POSITIVE_INFINITY : resume.at + w.lateMs;
    if (resume !== undefined) {
      out.push({
        user: user.id,
        at: resume.at + w.lateMs,
        since: resume.at,
        until: resume.until,
        expected: expectedStatusAt(user, resume.at),
        kind: "after-manual",
      });
    }
  }
  for (let i = 0; i + 1 < instants.length; i++) {
    const a = instants[i] as number;
    const b = instants[i + 1] as number;
    const at = a + w.lateMs;
    if (b - a <= w.lateMs || (at >= quietFrom && at <= quietUntil)) continue;
    out.push({
      user: user.id,
      at,
      since: a,
      until: b,
      expected: expectedStatusAt(user, at),
      kind: "calendar",
    });
  }
  return out.sort((x, y) => x.at - y.at);
}

/**
 * The first instant at or after `from` where a status starts showing (none or another one just
 * before) and holds for the lateness, so reading it late is still fair.
 */
function firstBlockStart(
  user: UserPlan,
  instants: readonly number[],
  from: number,
  w: CheckpointWindow,
): { at: number; until: number } | undefined {
  for (let i = 0; i < instants.length; i++) {
    const s = instants[i] as number;
    if (s < from || s + w.lateMs >= w.until) continue;
    const wanted = expectedStatusAt(user, s);
    if (wanted.text === "") continue;
    if (sameShown(expectedStatusAt(user, s - 1), wanted)) continue;
    const next = instants[i + 1] ?? w.until;
    if (next > s + w.lateMs) return { at: s, until: next };
  }
  return undefined;
}

export function planCheckpoints(users: readonly UserPlan[], w: CheckpointWindow): Checkpoint[] {
  return users.flatMap((u) => userCheckpoints(u, w)).sort((a, b) => a.at - b.at);
}
