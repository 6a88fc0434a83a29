import type { Clock } from "#lib/core/clock";
import type { OneTimeMarks, Queue, StatusStore } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import type { SyncMessage } from "../contracts";
import { sendEntries } from "../queue-sends";

/** A second Sync now within this long reads nothing again. */
export const SYNC_NOW_GUARD_MS = 60_000;

export type SyncNowOutcome =
  | { kind: "queued"; calendars: number }
  /** Pressed again within the guard: the reads already asked for cover it. */
  | { kind: "recent" }
  | { kind: "no_calendars" }
  | { kind: "unknown_user" };

export interface SyncNowDeps {
  store: Pick<StatusStore, "getUser">;
  /** Where the per-person guard is taken: a conditional write, shared by every worker. */
  marks: OneTimeMarks;
  clock: Clock;
  syncQueue: Queue<SyncMessage>;
}

export const syncNowMark = (key: UserKey): string => `sync-now#${key.team}#${key.user}`;

/**
 * "Sync now" (the Home tab, the settings page, `/statuspilot sync`): every calendar of the
 * person is queued for a full read at once (`manual`: read and expanded even if unchanged),
 * ten to a queue request, so the caller answers at once and the status follows within seconds.
 * A per-person mark, taken with a conditional write, makes a second press within
 * SYNC_NOW_GUARD_MS read nothing.
 */
export async function syncNow(deps: SyncNowDeps, key: UserKey): Promise<SyncNowOutcome> {
  const user = await deps.store.getUser(key);
  if (user === undefined || user.uninstalledAt !== undefined) return { kind: "unknown_user" };
  if (user.sources.length === 0) return { kind: "no_calendars" };
  const now = deps.clock.now();
  if (!(await deps.marks.consume(syncNowMark(key), now + SYNC_NOW_GUARD_MS, now))) {
    return { kind: "recent" };
  }
  await sendEntries(
    deps.syncQueue,
    user.sources.map((s) => ({
      message: { team: key.team, user: key.user, sourceId: s.id, reason: "manual" as const },
      delaySeconds: 0,
    })),
    2,
  );
  return { kind: "queued", calendars: user.sources.length };
}
