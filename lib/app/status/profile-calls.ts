import { GatewayError, type RateSlot, type StatusTarget } from "#lib/core/ports";
import type { ProfileRead } from "#lib/core/reconcile/state";
import { recordWrite } from "#lib/core/reconcile/write-outcome";
import type { StatusRecord, UserRecord } from "#lib/core/records";
import type { StatusValue } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import type { ReconcileOutcome } from "../contracts";
import { accessTokenFor } from "../secrets/token-refresh";
import { updateStatus } from "./records";
import { recordFailure } from "./write-failures";

/** The service calls of a reconcile: the read before a write, and the write itself. */

const asGatewayError = (error: unknown, what: string): GatewayError =>
  error instanceof GatewayError
    ? error
    : new GatewayError(`${what} failed`, "unexpected", true, false, undefined, { cause: error });

/** Whose profile a call with `token` changes: the user's own, or theirs through an admin's token. */
export const statusTargetOf = (user: UserRecord, token: string): StatusTarget => ({
  key: user.key,
  token,
  ...(user.adminTokenUser !== undefined ? { adminUser: user.adminTokenUser } : {}),
});

const targetOf = async (ctx: UseCaseContext, user: UserRecord): Promise<StatusTarget> =>
  statusTargetOf(user, await accessTokenFor(ctx, user));

/**
 * Reads what the profile shows before a write. A retryable failure is rescheduled like a
 * failed write and a final one stops the user's writes (`failed`); any other is `unavailable`:
 * the write goes ahead on the events we observed, since the set itself will say what is wrong.
 */
export async function readProfile(
  ctx: UseCaseContext,
  user: UserRecord,
  now: number,
): Promise<ProfileRead | { kind: "failed"; outcome: ReconcileOutcome }> {
  const key = user.key;
  const at = ctx.clock.now();
  try {
    const { actual } = await ctx.gateway.readStatus(await targetOf(ctx, user));
    return { kind: "shown", status: actual, at: Math.max(at, now) };
  } catch (error: unknown) {
    const failure = asGatewayError(error, "status read");
    if (failure.final || failure.retryable) {
      return { kind: "failed", outcome: await recordFailure(ctx, key, undefined, failure) };
    }
    ctx.log.warn("status read failed; writing from the observed events", {
      team: key.team,
      user: key.user,
      code: failure.code,
    });
    return { kind: "unavailable" };
  }
}

/**
 * A slot for a write (and the read before it) in the shared budget of spec 8.1. Only a token
 * that acts for many users (an admin's) is charged there: a user's own token writes one
 * profile, which the service client's own budget paces, and so costs no budget write.
 */
export async function takeWriteSlot(ctx: UseCaseContext, user: UserRecord): Promise<RateSlot> {
  if (ctx.rateBudget === undefined || user.adminTokenUser === undefined) return { ok: true };
  const key = user.key;
  return ctx.rateBudget.take(`${key.team}#${user.adminTokenUser}`, key.user, ctx.clock.now());
}

/**
 * Sends a claimed write (claimed at `sentAt`, stored as `claimed`) and records what the service
 * reports, over the claimed record without reading it again (a fresh read only when something
 * changed it meanwhile). `recheck`: another reconcile found something else due meanwhile, so
 * the caller must reconcile again. `answeredAt`: when the service answered the write.
 */
export async function sendStatus(
  ctx: UseCaseContext,
  user: UserRecord,
  target: StatusValue,
  sentAt: number,
  claimed: StatusRecord,
): Promise<{ outcome?: ReconcileOutcome; recheck: boolean; answeredAt?: number }> {
  const key = user.key;
  let actual: StatusValue;
  try {
    ({ actual } = await ctx.gateway.setStatus(await targetOf(ctx, user), target));
  } catch (error: unknown) {
    const failure = asGatewayError(error, "status write");
    return { outcome: await recordFailure(ctx, key, { target, sentAt }, failure), recheck: false };
  }
  const answeredAt = ctx.clock.now();
  let recheck = false;
  try {
    await updateStatus(ctx, claimed, (rec, now) => {
      const pending = rec.state.pending;
      recheck = pending?.claimedAt === sentAt && pending.recheck === true;
      return { ...rec, state: recordWrite(rec.state, actual, now, sentAt) };
    });
  } catch (error: unknown) {
    // The service applied the write but we could not record it. The claim stays, so its
    // echo counts as ours, and the error makes the queue deliver the message again.
    ctx.log.error("status written but not recorded; the message will be retried", {
      team: key.team,
      user: key.user,
      error: error instanceof Error ? error.message : String(error),
    });
    throw error;
  }
  return { recheck, answeredAt };
}
