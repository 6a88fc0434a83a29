import { VersionConflict } from "#lib/core/ports";
import type { UserRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import { isZone } from "../inputs";
import { queueNotice } from "../notice-queue";
import { mutateStatus } from "../status/records";
import { retryOnConflict } from "../version-retry";

/** What the OAuth callback learned: whose token it is, the token, and the person's zone. */
export interface InstallInput {
  key: UserKey;
  token: string;
  /** From `users.info`; a zone this runtime does not know is read as UTC. */
  tz: string;
  /** With token rotation on: the refresh token and when the access token expires (epoch ms). */
  refreshToken?: string;
  tokenExpiresAt?: number;
  /** The scopes the person granted the user token (`authed_user.scope`). */
  scopes?: string[];
}

export interface InstallOutcome {
  /** The user's session epoch, for the session cookie. */
  sessionEpoch: number;
  created: boolean;
  /** A stopped user (paused, or waiting for a re-authorisation) runs again. */
  resumed: boolean;
  /** The user's calendars, for the first (or renewed) sync the caller queues. */
  sourceIds: string[];
}

/**
 * Completes an install through the front door: creates the user, or gives an existing one the
 * new token and zone. Reconnecting resumes a paused user or one stopped for a re-authorisation
 * at once, with a reconcile from the timelines already stored. The session epoch is set when the
 * user is created (the instant of creation) and kept after.
 */
export async function completeInstall(
  ctx: UseCaseContext,
  input: InstallInput,
): Promise<InstallOutcome> {
  const owner = { team: input.key.team, user: input.key.user };
  const tokenSealed = await ctx.tokens.seal(input.token, { ...owner, field: "access_token" });
  const refreshTokenSealed =
    input.refreshToken === undefined
      ? undefined
      : await ctx.tokens.seal(input.refreshToken, { ...owner, field: "refresh_token" });
  const tz = isZone(input.tz) ? input.tz : "UTC";
  if (tz !== input.tz) ctx.log.warn("users.info gave an unknown zone; using UTC", { ...input.key });
  const saved = await retryOnConflict(
    ctx.options.maxConflictRetries,
    async () => {
      const now = ctx.clock.now();
      const existing = await ctx.store.getUser(input.key);
      // A new grant replaces the old token's rotation state and scopes, and a reinstall cancels
      // a pending deletion after an uninstall.
      const {
        adminTokenUser: _otherToken,
        refreshTokenSealed: _oldRefresh,
        tokenExpiresAt: _oldExpiry,
        tokenRefreshUntil: _oldLease,
        uninstalledAt: _uninstalled,
        grantedScopes: _oldScopes,
        ...kept
      } = existing ?? ({} as Partial<UserRecord>);
      const record: UserRecord = {
        emails: [],
        sources: [],
        rules: {},
        ...kept,
        key: input.key,
        tz,
        tokenSealed,
        mode: "auto",
        version: existing?.version ?? 0,
        updatedAt: now,
        sessionEpoch: existing?.sessionEpoch ?? now,
        ...(refreshTokenSealed !== undefined ? { refreshTokenSealed } : {}),
        ...(input.tokenExpiresAt !== undefined ? { tokenExpiresAt: input.tokenExpiresAt } : {}),
        ...(input.scopes !== undefined ? { grantedScopes: [...input.scopes] } : {}),
      };
      const user = await ctx.store.putUser(record, existing?.version);
      return { user, existing };
    },
    () => {
      throw new VersionConflict(`user ${input.key.user}`, undefined);
    },
  );
  let reauthCleared = false;
  await mutateStatus(ctx, input.key, (rec) => {
    const { needsReauth: cleared, ...state } = rec.state;
    reauthCleared = cleared !== undefined;
    return { ...rec, state };
  });
  const wasPaused = saved.existing?.mode === "paused";
  const resumed = reauthCleared || wasPaused;
  // The stop left no transition scheduled: reconcile now, from the timelines already stored.
  if (saved.existing !== undefined) await ctx.reconcile(input.key);
  // A reconnect clears what the person was told of their token; a Home tab opened before the
  // install shows them installed.
  await queueNotice(ctx.queue, ctx.clock, input.key);
  return {
    sessionEpoch: saved.user.sessionEpoch ?? saved.user.updatedAt,
    created: saved.existing === undefined,
    resumed,
    sourceIds: saved.user.sources.map((s) => s.id),
  };
}
