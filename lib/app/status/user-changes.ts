import {
  applyObservation,
  nothingNewIn,
  type ObservationResult,
} from "#lib/core/reconcile/user-change";
import { withSchedule } from "#lib/core/reconcile/wake-up";
import type { UserRecord } from "#lib/core/records";
import type { UserChange } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import { isZone } from "../inputs";
import { retryOnConflict } from "../version-retry";
import { rulesOf, timelineOf } from "./desired-timeline";
import { mutateUser, newStatusRecord, saveStatus } from "./records";

/**
 * Records one `user_change` observation, applied to the status state from a fresh read (events
 * arrive late, twice and out of order: the state recognises a duplicate; the handlers drop a
 * redelivered event id through Powertools idempotency first), then the user's zone is updated
 * and, unless the event was stale, the user is reconciled. False when nothing was done.
 */
export async function recordUserChange(ctx: UseCaseContext, change: UserChange): Promise<boolean> {
  const key = change.key;
  const now = ctx.clock.now();
  const applied = await retryOnConflict<
    { result: ObservationResult; user: UserRecord } | undefined
  >(
    ctx.options.maxConflictRetries,
    async () => {
      const snap = await ctx.store.loadUser(key);
      const user = snap.user;
      if (user === undefined) {
        ctx.log.info("user_change for an unknown user skipped", { team: key.team, user: key.user });
        return undefined;
      }
      const rec = snap.status ?? newStatusRecord(key, now);
      const observed = applyObservation(rec.state, change);
      if (observed.result === "duplicate") return undefined;
      const rules = rulesOf(ctx.log, user);
      const timeline = timelineOf(ctx.log, snap, now, rules);
      const state = observed.state;
      const scheduled = withSchedule({ ...rec, state }, timeline, now, rules.standing);
      await saveStatus(ctx, scheduled.rec, snap.status?.version);
      return { result: observed.result, user };
    },
    () => undefined,
  );
  if (applied === undefined) return false;
  const tz = change.tz;
  if (tz !== undefined && applied.user.tz !== tz && isZone(tz)) {
    await mutateUser(ctx, key, (u) => ({ ...u, tz }));
  }
  if (applied.result !== "stale") await ctx.reconcile(key);
  return true;
}

/**
 * Whether `change` tells nothing new (lib/core/reconcile/user-change.ts: a `duplicate` already
 * recorded, or an `echo` of ours: of a write recorded or claimed, or an expiry we planned),
 * with one small read of the user's profile and status. Such an event needs no recording, no
 * reconcile and no once-only gate: handling it is a no-op. Undefined when it must be recorded.
 * The read is strongly consistent: the echo of our own write comes right after we record it,
 * when an eventually consistent read could miss the record and make the echo cost a full
 * recording.
 */
export async function isNothingNew(
  ctx: UseCaseContext,
  change: UserChange,
): Promise<"duplicate" | "echo" | undefined> {
  const snap = await ctx.store.getUserAndStatus(change.key);
  if (snap.user === undefined || snap.status === undefined) return undefined;
  // A new zone is news, even on an echo.
  if (change.tz !== undefined && change.tz !== snap.user.tz) return undefined;
  const known = nothingNewIn(snap.status.state, change);
  if (known !== undefined) {
    ctx.log.debug("user_change tells nothing new", {
      team: change.key.team,
      user: change.key.user,
      known,
    });
  }
  return known;
}
