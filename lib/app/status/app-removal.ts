import type { UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import type { ReconcileOutcome } from "../contracts";
import { queueNotice } from "../notice-queue";
import { mutateStatus, mutateUser } from "./records";

/**
 * What the service's `tokens_revoked` and `app_uninstalled` events do. Both stop every service
 * call for the users concerned at once: the status item's `needsReauth` makes the reconcile
 * return without calling, and takes the user out of the due index. A new token (a reconnect
 * through the install, or the admin API) clears it and reconciles (lib/app/people/users.ts).
 */

export const TOKEN_REVOKED = "token_revoked";
export const APP_UNINSTALLED = "app_uninstalled";

/** Stops the users whose tokens the service revoked; returns how many Statuspilot knew. */
export async function recordTokensRevoked(
  ctx: UseCaseContext,
  team: string,
  users: string[],
): Promise<number> {
  let stopped = 0;
  for (const user of new Set(users)) {
    const key = { team, user };
    if ((await ctx.store.getUser(key)) === undefined) continue;
    await stop(ctx, key, undefined);
    // The person is told (once) that nothing sets their status any more.
    await queueNotice(ctx.queue, ctx.clock, key);
    stopped++;
  }
  ctx.log.info("tokens revoked: users stopped", { team, stopped });
  return stopped;
}

/**
 * Stops every user of the team, and schedules the deletion of their data after the grace
 * period: the due index wakes each user at `deleteAt`, and the wake-up then deletes them
 * (`wakeUser`). A reinstall before then clears the stop, and the deletion with it. Returns how
 * many users were stopped.
 */
export async function recordAppUninstalled(ctx: UseCaseContext, team: string): Promise<number> {
  const users = await ctx.store.usersOfTeam(team);
  for (const u of users) {
    await mutateUser(ctx, u.key, (rec) => ({
      ...rec,
      uninstalledAt: rec.uninstalledAt ?? ctx.clock.now(),
    }));
    await stop(ctx, u.key, ctx.options.uninstallGraceMs);
  }
  ctx.log.info("app uninstalled: users stopped, deletion scheduled", {
    team,
    stopped: users.length,
  });
  return users.length;
}

/**
 * The wake-up the due index gives a user: their reconcile, and, once an uninstall's grace period
 * is over, the deletion of their data. Only the transition worker wakes users (at `deleteAt`,
 * through the tick), and only its role may delete: a reconcile elsewhere (a user_change, a sync,
 * a settings form) finds the user stopped and calls nothing.
 */
export async function wakeUser(ctx: UseCaseContext, key: UserKey): Promise<ReconcileOutcome> {
  const outcome = await ctx.reconcile(key);
  if (outcome.kind !== "needs_reauth" || outcome.code !== APP_UNINSTALLED) return outcome;
  return (await purgeIfDue(ctx, key)) ? { kind: "leave", reason: "deleted" } : outcome;
}

/** Deletes the user's data when an uninstall's grace period is over; true when it did. */
async function purgeIfDue(ctx: UseCaseContext, key: UserKey): Promise<boolean> {
  const deleteAt = (await ctx.store.getStatus(key))?.state.needsReauth?.deleteAt;
  if (deleteAt === undefined || deleteAt > ctx.clock.now()) return false;
  await ctx.store.deleteUserData(key);
  ctx.log.info("user data deleted after the app was uninstalled", {
    team: key.team,
    user: key.user,
  });
  return true;
}

/** Flags the user (keeping an earlier deletion date) and drops their scheduled transition. */
async function stop(ctx: UseCaseContext, key: UserKey, graceMs: number | undefined): Promise<void> {
  await mutateStatus(ctx, key, (rec, now) => {
    const { nextTransitionAt: _stopped, nextIsOoo: _ooo, ...rest } = rec;
    const earlier = rec.state.needsReauth?.deleteAt;
    const deleteAt = graceMs === undefined ? earlier : Math.min(earlier ?? Infinity, now + graceMs);
    // The two events come in either order: an uninstall's deletion date, once set, stays.
    const code = deleteAt === undefined ? TOKEN_REVOKED : APP_UNINSTALLED;
    return {
      ...rest,
      state: {
        ...rec.state,
        needsReauth: { code, at: now, ...(deleteAt !== undefined ? { deleteAt } : {}) },
      },
      // Indexed again only for the deletion.
      ...(deleteAt !== undefined ? { nextTransitionAt: deleteAt, nextIsOoo: false } : {}),
    };
  });
}
