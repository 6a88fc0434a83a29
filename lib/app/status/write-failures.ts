import { backoffDelayMs } from "#lib/core/backoff";
import type { GatewayError } from "#lib/core/ports";
import { releaseWrite } from "#lib/core/reconcile/write-outcome";
import type { StatusState } from "#lib/core/records";
import type { StatusValue, UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import type { ReconcileOutcome } from "../contracts";
import { countUserNeedingReauth } from "../metrics/catalog";
import { queueNotice } from "../notice-queue";
import { MAX_DELAY_S } from "../queue-sends";
import { enqueueRetry, mutateStatus } from "./records";

/** What becomes of a status write (or the read before it) that did not go through. */

/**
 * Records a failed write (`write` names it and its claim) or a failed read before a write
 * (`write` undefined: nothing was claimed or sent). A final error stops the user's writes, a
 * retryable one is rescheduled with backoff (or the service's Retry-After), any other refuses
 * this status for good.
 */
export async function recordFailure(
  ctx: UseCaseContext,
  key: UserKey,
  write: { target: StatusValue; sentAt: number } | undefined,
  error: GatewayError,
): Promise<ReconcileOutcome> {
  const what = write === undefined ? "status read" : "status write";
  const log = { team: key.team, user: key.user, code: error.code };
  // A timeout or internal error may have applied the write: it stays an attempt.
  const release = (state: StatusState): StatusState =>
    write === undefined ? state : releaseWrite(state, write.sentAt);
  if (error.final) {
    ctx.log.warn(`${what} refused for good; the user must authorise again`, log);
    let newly = false;
    await mutateStatus(ctx, key, (rec, now) => {
      newly = rec.state.needsReauth === undefined;
      const state = release(rec.state);
      const { nextTransitionAt: _stopped, nextIsOoo: _ooo, ...rest } = rec;
      return { ...rest, state: { ...state, needsReauth: { code: error.code, at: now } } };
    });
    if (newly) {
      countUserNeedingReauth(ctx.metrics);
      // The person is told (once) that nothing sets their status any more.
      await queueNotice(ctx.queue, ctx.clock, key);
    }
    return { kind: "needs_reauth", code: error.code };
  }
  if (error.retryable) {
    let at = 0;
    await mutateStatus(ctx, key, (rec, now) => {
      const attempt = (rec.state.retry?.attempt ?? 0) + 1;
      const backoff = { baseS: ctx.options.backoffBaseS, maxS: ctx.options.backoffMaxS };
      const seed = `${key.team}/${key.user}/${attempt}`;
      at = now + backoffDelayMs(backoff, attempt, seed, error.retryAfterS);
      const state = release(rec.state);
      const next = Math.min(rec.nextTransitionAt ?? Number.POSITIVE_INFINITY, at);
      // Queued below: marked so the tick does not queue it again.
      const queued = next === at && at - now <= MAX_DELAY_S * 1000;
      return {
        ...rec,
        state: { ...state, retry: { attempt, at, code: error.code } },
        nextTransitionAt: next,
        ...(queued ? { enqueuedFor: at } : {}),
      };
    });
    ctx.log.info(`${what} rescheduled`, { ...log, at });
    await enqueueRetry(ctx, key, at);
    return { kind: "rescheduled", at, code: error.code };
  }
  if (write === undefined) {
    // readProfile records only retryable and final failures.
    return { kind: "leave", reason: `the profile could not be read (${error.code})` };
  }
  ctx.log.warn("status write refused; not sending this status again", log);
  await mutateStatus(ctx, key, (rec, now) => {
    const state = releaseWrite(rec.state, write.sentAt);
    return {
      ...rec,
      state: { ...state, rejected: { status: write.target, code: error.code, at: now } },
    };
  });
  return { kind: "leave", reason: `the service refused this status (${error.code})` };
}
