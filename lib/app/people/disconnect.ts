import { GatewayError } from "#lib/core/ports";
import { showsOurStatus } from "#lib/core/reconcile/user-change";
import type { StatusRecord, UserRecord } from "#lib/core/records";
import { EMPTY_STATUS, type UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import { accessTokenFor } from "../secrets/token-refresh";
import { statusTargetOf } from "../status/profile-calls";

/**
 * Revokes a token at the service (`auth.revoke`). Answers normally when the token is revoked or
 * was already dead; throws when the service could not be asked, so nothing is deleted yet.
 */
export type RevokeToken = (token: string) => Promise<void>;

/**
 * Disconnect and delete: clears the status Statuspilot set, revokes the user's token at the
 * service, then deletes every item of the user from the table. Clearing comes first: once the
 * token is revoked nothing can clear it, and a block of ours (an out-of-office: days) would
 * outlive everything else of ours. Revoking comes before deleting: once the data is gone the
 * token could never be revoked. The next install creates the user afresh, with a new session
 * epoch, so no session from before works again. Answers false when there was no such user.
 */
export async function disconnectUser(
  ctx: UseCaseContext,
  key: UserKey,
  revoke: RevokeToken,
): Promise<boolean> {
  const snap = await ctx.store.getUserAndStatus(key);
  const user = snap.user;
  if (user === undefined) return false;
  // A rotating token that expired is renewed first, so the calls reach a live token.
  const token = await accessTokenFor(ctx, user);
  await clearOurStatus(ctx, user, snap.status, token);
  // An admin's token acting for this user is not this user's to revoke.
  if (user.adminTokenUser === undefined) await revoke(token);
  const deleted = await ctx.store.deleteUserData(key);
  ctx.log.info("user disconnected and deleted", { team: key.team, user: key.user, deleted });
  return true;
}

/**
 * Clears the profile's status if, and only if, it still is one Statuspilot wrote: the profile is
 * read (`users.profile.get`), since a status the person set by hand may never have reached us as
 * an event. A failed read or clear does not stop the disconnect: the person asked to leave, and
 * what shows then is left as it is (logged).
 */
async function clearOurStatus(
  ctx: UseCaseContext,
  user: UserRecord,
  status: StatusRecord | undefined,
  token: string,
): Promise<void> {
  const ids = { team: user.key.team, user: user.key.user };
  if (status === undefined) return;
  const target = statusTargetOf(user, token);
  try {
    const { actual } = await ctx.gateway.readStatus(target);
    if (!showsOurStatus(status.state, actual, ctx.clock.now())) return;
    await ctx.gateway.setStatus(target, { ...EMPTY_STATUS });
    ctx.log.info("status of ours cleared before disconnecting", ids);
  } catch (error: unknown) {
    if (!(error instanceof GatewayError)) throw error;
    ctx.log.warn("status not cleared before disconnecting", { ...ids, code: error.code });
  }
}
