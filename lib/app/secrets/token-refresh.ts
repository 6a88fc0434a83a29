import { GatewayError, VersionConflict } from "#lib/core/ports";
import type { UserRecord } from "#lib/core/records";
import type { UseCaseContext } from "../context";

/**
 * The access token a service call for `user` uses. With token rotation on (the record has a
 * refresh token and an expiry), a token that expires within the margin is renewed first.
 *
 * The refresh token is single-use, so two workers must never both spend it: the one that wins
 * a versioned write of a short lease on the user record refreshes and stores the new pair; the
 * others re-read the record until the new token is there. A dead refresh token is a final
 * GatewayError (the user must reconnect); a lease nobody finished in time is a retryable one.
 */
export async function accessTokenFor(ctx: UseCaseContext, user: UserRecord): Promise<string> {
  let current = user;
  for (let round = 0; round < REREADS; round++) {
    const now = ctx.clock.now();
    if (!needsRefresh(ctx, current, now)) {
      return ctx.tokens.open(current.tokenSealed, { ...current.key, field: "access_token" });
    }
    const refresher = ctx.tokenRefresher;
    const refreshSealed = current.refreshTokenSealed;
    if (refresher === undefined || refreshSealed === undefined) {
      // No way to renew it: use it while it lasts; the service says when it no longer works.
      return ctx.tokens.open(current.tokenSealed, { ...current.key, field: "access_token" });
    }
    if ((current.tokenRefreshUntil ?? 0) <= now) {
      const leased = await claimRefresh(ctx, current, now);
      if (leased !== undefined) return refreshWith(ctx, leased, refreshSealed);
    } else {
      // Another worker is refreshing: give it a moment before reading what it stored.
      await pause(REREAD_WAIT_MS);
    }
    const fresh = await ctx.store.getUser(current.key);
    if (fresh === undefined) throw new GatewayError("user removed", "unknown_user", false, false);
    current = fresh;
  }
  throw new GatewayError("token refresh still in progress elsewhere", "token_refresh", true, false);
}

/** Re-reads while another worker refreshes, each after a short wait: a few seconds in all. */
const REREADS = 20;
const REREAD_WAIT_MS = 150;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function needsRefresh(ctx: UseCaseContext, user: UserRecord, now: number): boolean {
  return (
    user.tokenExpiresAt !== undefined &&
    user.tokenExpiresAt - ctx.options.tokenRefreshMarginMs <= now
  );
}

/** The record with this worker's lease, or undefined when another write came first. */
async function claimRefresh(
  ctx: UseCaseContext,
  user: UserRecord,
  now: number,
): Promise<UserRecord | undefined> {
  try {
    return await ctx.store.putUser(
      { ...user, tokenRefreshUntil: now + ctx.options.tokenRefreshLeaseMs, updatedAt: now },
      user.version,
    );
  } catch (error: unknown) {
    if (error instanceof VersionConflict) return undefined;
    throw error;
  }
}

/** Spends the refresh token and stores the new pair over the leased record. */
async function refreshWith(
  ctx: UseCaseContext,
  leased: UserRecord,
  refreshSealed: string,
): Promise<string> {
  const key = leased.key;
  const refresher = ctx.tokenRefresher;
  if (refresher === undefined) throw new Error("refreshWith needs a token refresher");
  const ids = { team: key.team, user: key.user };
  let renewed: Awaited<ReturnType<typeof refresher.refresh>>;
  try {
    renewed = await refresher.refresh(
      await ctx.tokens.open(refreshSealed, { ...ids, field: "refresh_token" }),
    );
  } catch (error: unknown) {
    await releaseLease(ctx, leased);
    ctx.log.warn("token refresh failed", {
      ...ids,
      code: error instanceof GatewayError ? error.code : "unexpected",
    });
    throw error;
  }
  const [tokenSealed, refreshTokenSealed] = await Promise.all([
    ctx.tokens.seal(renewed.accessToken, { ...ids, field: "access_token" }),
    ctx.tokens.seal(renewed.refreshToken, { ...ids, field: "refresh_token" }),
  ]);
  // The old refresh token is spent: the new pair must be stored even if the record moved on.
  let base = leased;
  for (let attempt = 0; ; attempt++) {
    const { tokenRefreshUntil: _released, ...rest } = base;
    try {
      await ctx.store.putUser(
        {
          ...rest,
          tokenSealed,
          refreshTokenSealed,
          tokenExpiresAt: renewed.expiresAt,
          updatedAt: ctx.clock.now(),
        },
        base.version,
      );
      break;
    } catch (error: unknown) {
      if (!(error instanceof VersionConflict) || attempt >= ctx.options.maxConflictRetries) {
        throw error;
      }
      const fresh = await ctx.store.getUser(key);
      if (fresh === undefined) break; // deleted meanwhile: nothing to keep it for
      base = fresh;
    }
  }
  ctx.log.info("token refreshed", ids);
  return renewed.accessToken;
}

/** Lets the next worker try at once after a failed refresh (best effort). */
async function releaseLease(ctx: UseCaseContext, leased: UserRecord): Promise<void> {
  const { tokenRefreshUntil: _released, ...rest } = leased;
  try {
    await ctx.store.putUser({ ...rest, updatedAt: ctx.clock.now() }, leased.version);
  } catch (error: unknown) {
    if (!(error instanceof VersionConflict)) throw error;
  }
}
