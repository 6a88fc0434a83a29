import type { SourceError, SourceErrorKind, SourceHealth } from "./records";

/**
 * A calendar's read health as the sync records it: the decision is pure, and it writes only when
 * what it would show changes (a run of failures starts, changes kind, ends, or reaches
 * FAILING_NOTICE_MS), so a quiet day's reads add no write.
 */

/** A calendar that failed every read this long is a problem the person is told about, once. */
export const FAILING_NOTICE_MS = 6 * 3_600_000;

/** What one read came to, for its health. */
export type ReadResult = { ok: true } | { ok: false; kind: SourceErrorKind; status?: number };

export interface HealthStep {
  /** The health to store; undefined when nothing changed (no write). */
  next?: SourceHealth;
  /**
   * Why the person's Home (and DMs) should be looked at again: `changed`, what they show of this
   * calendar changed; `failing_long`, it has now failed every read for FAILING_NOTICE_MS.
   */
  notice?: "changed" | "failing_long";
}

const sameFailure = (error: SourceError, read: { kind: SourceErrorKind; status?: number }) =>
  error.kind === read.kind && error.status === read.status;

/**
 * The health after a read at `now`. `lastGood` is the last read known good before it (kept when
 * a run of failures starts, as "last good read"), or undefined when none is known.
 */
export function healthAfter(
  health: SourceHealth | undefined,
  read: ReadResult,
  now: number,
  lastGood: number | undefined,
): HealthStep {
  const error = health?.error;
  if (read.ok) return error === undefined ? {} : { next: { okAt: now }, notice: "changed" };
  const failure = {
    kind: read.kind,
    ...(read.status !== undefined ? { status: read.status } : {}),
  };
  if (error === undefined) {
    const okAt = lastGood ?? health?.okAt;
    return {
      next: { ...(okAt !== undefined ? { okAt } : {}), error: { ...failure, since: now } },
      notice: "changed",
    };
  }
  const due = now - error.since >= FAILING_NOTICE_MS && error.noticedAt === undefined;
  if (!due && sameFailure(error, read)) return {};
  const noticedAt = due ? now : error.noticedAt;
  return {
    next: {
      ...health,
      error: { ...failure, since: error.since, ...(noticedAt !== undefined ? { noticedAt } : {}) },
    },
    notice: due ? "failing_long" : "changed",
  };
}

/** What went wrong, in words for the person (no address, no secret). */
export function sourceErrorWords(error: Pick<SourceError, "kind" | "status">): string {
  const http = error.status !== undefined ? ` (HTTP ${error.status})` : "";
  switch (error.kind) {
    case "unreachable":
      return "Its server did not answer.";
    case "server_error":
      return `Its server answered with an error${http}.`;
    case "gone":
      return `The address no longer exists${http}: the calendar was deleted, or its secret address changed.`;
    case "refused":
      return `The address refused to be read${http}.`;
    case "address_refused":
      return "The address points somewhere Statuspilot may not read.";
    case "not_calendar":
      return "The address no longer gives a calendar (it is not iCalendar).";
    case "too_large":
      return "The calendar is too large to read.";
    case "provider":
      return `The calendar service answered with an error${http}.`;
    case "failed":
      return "The read failed.";
  }
}
