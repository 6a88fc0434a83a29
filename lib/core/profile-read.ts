import { appendWrite, effectiveStatus, type StatusState, sameStatus } from "./status-state";
import { EMPTY_STATUS, isEmptyStatus, type StatusValue } from "./types";

/*
 * What a read of the profile (`users.profile.get`) tells the reconciler. A read is exact, so it
 * settles what events cannot: a manual override whose clear's event was lost, a user's change
 * that ties with our write in one second, a write whose outcome is unknown.
 */

/** What a read of the profile showed: one of our writes, nothing, or a status the user set. */
export type ReadResult = "ours" | "empty" | "manual";

/**
 * Applies what a read of the profile showed at `readAt` (epoch ms). Unlike an event, a read is
 * never late: it is what the profile shows now, so it settles every attempt whose outcome was
 * unknown and is stamped as the newest observation; an older `user_change` arriving after it is
 * stale. A status matching one of our writes, attempts or claims is ours (and is what we last
 * wrote); an empty or expired one ends any override; anything else is a manual status the
 * user set, even when its event was lost.
 */
export function applyRead(
  state: StatusState,
  shown: StatusValue,
  readAt: number,
): { state: StatusState; result: ReadResult } {
  const observedAt = Math.max(readAt, state.actual.observedAt);
  const status = effectiveStatus(
    { ...shown, expiration: isEmptyStatus(shown) ? 0 : shown.expiration },
    readAt,
  );
  const { override: _ended, ...withoutOverride } = state;
  if (isEmptyStatus(status)) {
    return {
      state: {
        ...withoutOverride,
        actual: { status: { ...EMPTY_STATUS }, observedAt, source: "read" },
      },
      result: "empty",
    };
  }
  const same = (s: StatusValue): boolean => sameStatus(s, status);
  const attempt = state.attempts?.findLast((a) => same(a.status));
  const claim =
    state.pending !== undefined && same(state.pending.status) ? state.pending : undefined;
  const written =
    (state.lastWritten !== undefined && same(state.lastWritten)) ||
    state.recentWrites.some((w) => same(w.status));
  if (attempt === undefined && claim === undefined && !written) {
    return {
      state: {
        ...state,
        actual: { status, observedAt, source: "read" },
        override: { status, since: readAt },
      },
      result: "manual",
    };
  }
  // An attempt or an abandoned claim the profile shows was applied: record it as a write, so
  // its late echo is ours too.
  const sentAt = attempt?.sentAt ?? claim?.claimedAt;
  const latest = state.recentWrites.at(-1);
  // Kept newest last: one sent before our latest write only becomes what we last wrote.
  const confirmed =
    sentAt !== undefined && (latest === undefined || (!same(latest.status) && sentAt > latest.at));
  const recentWrites = confirmed
    ? appendWrite(state.recentWrites, { status, at: sentAt, until: readAt })
    : state.recentWrites;
  const attempts = confirmed ? state.attempts?.filter((a) => a !== attempt) : state.attempts;
  return {
    state: {
      ...withoutOverride,
      ...(attempts !== undefined ? { attempts } : {}),
      lastWritten: status,
      recentWrites,
      actual: { status, observedAt, source: "read" },
    },
    result: "ours",
  };
}

/**
 * Whether a status the profile showed at `readAt` is one Statuspilot wrote: its text and emoji
 * together match a write of ours (the last, a recent one, an attempt whose outcome is unknown,
 * or one in flight). Text and emoji identify a status; its expiration does not (the person may
 * only have changed when it clears). An empty or expired status is nobody's.
 */
export function showsOurStatus(state: StatusState, shown: StatusValue, readAt: number): boolean {
  const status = effectiveStatus(shown, readAt);
  if (isEmptyStatus(status)) return false;
  const ours = [
    state.lastWritten,
    state.pending?.status,
    ...state.recentWrites.map((w) => w.status),
    ...(state.attempts ?? []).map((a) => a.status),
  ];
  return ours.some((s) => s !== undefined && s.text === status.text && s.emoji === status.emoji);
}
