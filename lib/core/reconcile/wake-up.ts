import type { StatusRecord } from "../records";
import type { Standing as StandingMode } from "../rules";
import { desiredAt, nextWakeAfter } from "../timeline";
import type { Block } from "../types";
import { knownStanding, standingOf } from "./state";

/**
 * Fills in a status record's next wake-up: the next block start, the end of a manual override,
 * or a pending retry, whichever comes first (while the user must authorise again: none, or the
 * deletion of their data after an uninstall). In restore mode, while a standing status is known,
 * the end of the block due now too: the standing status is set back then (a block followed at
 * once by another is woken at that start anyway). `changed` says whether the indexed schedule
 * moved, so an unchanged one is not stored.
 */
export function withSchedule(
  rec: StatusRecord,
  timeline: Block[],
  now: number,
  mode: StandingMode = "keep",
): { rec: StatusRecord; changed: boolean } {
  const candidates: number[] = [];
  const edge = nextWakeAfter(timeline, now);
  if (edge !== undefined) candidates.push(edge);
  const restoreAt = desiredAt(timeline, now)?.end;
  if (
    mode === "restore" &&
    standingOf(knownStanding(rec.state)) !== undefined &&
    restoreAt !== undefined
  ) {
    candidates.push(restoreAt);
  }
  const override = rec.state.override?.status;
  if (override !== undefined && override.expiration > 0 && override.expiration * 1000 > now) {
    candidates.push(override.expiration * 1000);
  }
  const retryAt = rec.state.retry?.at;
  if (retryAt !== undefined && retryAt > now) candidates.push(retryAt);
  // Stopped, the only wake-up left is the deletion after an uninstall, if any.
  const stopped = rec.state.needsReauth;
  const next =
    stopped !== undefined
      ? stopped.deleteAt
      : candidates.length > 0
        ? Math.min(...candidates)
        : undefined;
  const nextIsOoo = next !== undefined && desiredAt(timeline, next)?.kind === "ooo";
  const { nextTransitionAt: _old, nextIsOoo: _oldOoo, ...rest } = rec;
  const updated: StatusRecord = {
    ...rest,
    updatedAt: now,
    ...(next !== undefined ? { nextTransitionAt: next, nextIsOoo } : {}),
  };
  const changed =
    rec.version === 0 ||
    rec.nextTransitionAt !== next ||
    (next !== undefined && rec.nextIsOoo !== nextIsOoo);
  return { rec: updated, changed };
}
