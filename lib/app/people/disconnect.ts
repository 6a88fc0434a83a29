import type { UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import { accessTokenFor } from "../secrets/token-refresh";

/**
 * Revokes a token at the service (`auth.revoke`). Answers normally when the token is revoked or
 * was already dead; throws when the service could not be asked, so nothing is deleted yet.
 */
export type RevokeToken = (token: string) => Promise<void>;

/**
 * Disconnect and delete: revokes the user's token at the service, then deletes every item of
 * the user from the table. Revoking comes first: once the data is gone the token could never be
 * revoked. The next install creates the user afresh, with a new session epoch, so no session
 * from before works again. Answers false when there was no such user.
 */
export async function disconnectUser(
  ctx: UseCaseContext,
  key: UserKey,
  revoke: RevokeToken,
): Promise<boolean> {
  const user = await ctx.store.getUser(key);
  if (user === undefined) return false;
  // An admin's token acting for this user is not this user's to revoke.
  // A rotating token that expired is renewed first, so the revoke reaches a live token.
  if (user.adminTokenUser === undefined) await revoke(await accessTokenFor(ctx, user));
  const deleted = await ctx.store.deleteUserData(key);
  ctx.log.info("user disconnected and deleted", { team: key.team, user: key.user, deleted });
  return true;
}
