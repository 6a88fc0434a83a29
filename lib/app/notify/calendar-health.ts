import {
  POLL_INTERVAL_MS,
  POLL_RUN_MS,
  pollPhaseOf,
  pollRunsOf,
  pollVisitOf,
} from "#lib/core/poll";
import type { SourceKind, SourceRecord, UserRecord } from "#lib/core/records";
import { sourceErrorWords } from "#lib/core/source-health";
import type { UserKey } from "#lib/core/types";
import { pollChecks, SAFETY_POLL_MS } from "../push/plan";
import { shownAddress } from "../secrets/source-address";

/**
 * One calendar's health as the Home tab and the settings page both show it (one function for
 * both): its name, its last good read, its last error in words, and when it is read next.
 */
export interface CalendarHealthView {
  id: string;
  kind: SourceKind;
  /** The calendar's name, or how it was named before names were kept. */
  name: string;
  /** The last read known good, epoch ms: as recorded, or the last scheduled read while healthy. */
  lastGoodAt?: number;
  /** Its reads fail: since when (every read since has failed), and why in words. */
  error?: { words: string; since: number };
  /** When the poll reads it next (epoch ms); absent: it is not read (paused, or to reconnect). */
  nextReadAt?: number;
  /** Its changes are pushed as they happen (a live channel): the poll only checks behind it. */
  pushed?: boolean;
  /** Its account refused the grant: it is read again only once connected again. */
  reconnect?: boolean;
}

/**
 * How a calendar is named to its person: its own name when the source has one (a feed's
 * X-WR-CALNAME, the provider's calendar name), else its kind, number and the shown part of its
 * address, as before names were kept.
 */
export function calendarLabel(source: SourceRecord, index: number): string {
  const named = (source as { name?: unknown }).name;
  if (typeof named === "string" && named.trim() !== "") return named.trim();
  return `${source.kind === "ics" ? "ICS calendar" : source.kind} ${index + 1} (${shownAddress(source)})`;
}

/** As far as the schedule is looked through: the longest wait between two reads, and a slot. */
const VISITS_LOOKED_AT = (SAFETY_POLL_MS + POLL_INTERVAL_MS) / POLL_INTERVAL_MS;

/** Whether the poll reads this user's calendars at all (the poll index's own rule). */
const isPolled = (user: Pick<UserRecord, "mode" | "uninstalledAt">): boolean =>
  user.mode === "auto" && user.uninstalledAt === undefined;

/**
 * The poll's reads of `source` after `from` (`step` 1) or at or before it (-1), by the poll's own
 * choice (lib/app/push/plan.ts pollChecks) at each run that visits the user: the first found.
 */
function scheduledRead(
  key: UserKey,
  source: SourceRecord,
  from: number,
  step: 1 | -1,
): number | undefined {
  return pollRunsOf(pollPhaseOf(key), from, step, VISITS_LOOKED_AT).find((run) =>
    pollChecks(source, key, pollVisitOf(run), run),
  );
}

/**
 * The last read of `source` known good at `now`. While it fails: the one recorded when the
 * failures began. Otherwise the latest of what was recorded and the last scheduled read (every
 * read that fails is recorded, so one that left no error was good); `before` leaves out a read
 * under way at `now` (the sync's own, when a failure begins).
 */
export function lastGoodReadOf(
  key: UserKey,
  user: Pick<UserRecord, "mode" | "uninstalledAt">,
  source: SourceRecord,
  now: number,
  opts: { before?: boolean } = {},
): number | undefined {
  const health = source.health;
  if (health?.error !== undefined) return health.okAt;
  // Never read successfully yet: no scheduled read counts as good.
  if (source.syncedAt === undefined) return health?.okAt;
  const scheduled = isPolled(user)
    ? scheduledRead(key, source, opts.before === true ? now - POLL_RUN_MS : now, -1)
    : undefined;
  const known = [health?.okAt, source.syncedAt, scheduled].filter(
    (at): at is number => at !== undefined && at <= now,
  );
  return known.length === 0 ? undefined : Math.max(...known);
}

/** One calendar's health at `now` (`index`: its place among the person's calendars). */
export function calendarHealthOf(
  key: UserKey,
  user: Pick<UserRecord, "mode" | "uninstalledAt">,
  source: SourceRecord,
  index: number,
  now: number,
): CalendarHealthView {
  const error = source.health?.error;
  const lastGoodAt = lastGoodReadOf(key, user, source, now);
  const reconnect = source.reconnectSince !== undefined;
  const nextReadAt = isPolled(user) ? scheduledRead(key, source, now + 1, 1) : undefined;
  const pushed = source.push !== undefined && source.push.expiresAt > now && !reconnect;
  return {
    id: source.id,
    kind: source.kind,
    name: calendarLabel(source, index),
    ...(lastGoodAt !== undefined ? { lastGoodAt } : {}),
    ...(error !== undefined && !reconnect
      ? { error: { words: sourceErrorWords(error), since: error.since } }
      : {}),
    ...(nextReadAt !== undefined && !reconnect ? { nextReadAt } : {}),
    ...(pushed ? { pushed } : {}),
    ...(reconnect ? { reconnect } : {}),
  };
}
