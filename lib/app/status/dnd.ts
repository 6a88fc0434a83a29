import {
  DND_SCOPES,
  decideSnooze,
  dndAllowed,
  type SnoozeRecord,
  type SnoozeStep,
} from "#lib/core/dnd";
import { GatewayError, VersionConflict } from "#lib/core/ports";
import type { UserSnapshot } from "#lib/core/records";
import type { Block, UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import { accessTokenFor } from "../secrets/token-refresh";
import { statusTargetOf } from "./profile-calls";
import { enqueueRetry, mutateUser } from "./records";

/** Refusals that say the token may not make DND calls: its person must reinstall to allow them. */
const NOT_ALLOWED: ReadonlySet<string> = new Set([
  "missing_scope",
  "not_allowed_token_type",
  "no_permission",
]);

/** A failed DND call that may succeed later comes back after this long at least. */
const RETRY_AFTER_MS = 5_000;

/**
 * Follows the person's Do Not Disturb with their timeline: the pure `decideSnooze`
 * (lib/core/dnd.ts) chooses; this asks `dnd.info` when told to, claims each call on the user's
 * DND item (a versioned write, so concurrent reconciles send it once), sends it and records what
 * the service answered; told to come back (a call in flight for something else), it queues a
 * retry a moment later. Nothing for a person whose token lacks the DND scopes, who paused, who
 * must authorise again, or whose token is an administrator's (DND is only ever the caller's own).
 */
export async function followSnooze(
  ctx: UseCaseContext,
  snap: UserSnapshot,
  timeline: Block[],
): Promise<void> {
  const { user, snooze: record } = snap;
  const gateway = ctx.snoozes;
  if (gateway === undefined || user === undefined || !dndAllowed(user)) return;
  if (user.mode === "paused" || user.adminTokenUser !== undefined) return;
  if (snap.status?.state.needsReauth !== undefined) return;
  const now = ctx.clock.now();
  const claim = record?.claim;
  const inFlight =
    claim !== undefined && now - claim.claimedAt < ctx.options.pendingLeaseMs ? claim : undefined;
  const ours = record?.ours;
  const situation = { timeline, now, ours, ...(inFlight ? { inFlight } : {}) };
  let step: SnoozeStep = decideSnooze(situation);
  if (step.kind === "nothing") return;
  const key = user.key;
  if (step.kind === "recheck") {
    await enqueueRetry(ctx, key, now + ctx.options.inFlightRecheckMs);
    return;
  }
  let saved = record;
  try {
    const target = statusTargetOf(user, await accessTokenFor(ctx, user));
    if (step.kind === "info") {
      const info = await gateway.snoozeInfo(target);
      step = decideSnooze({ timeline, now: ctx.clock.now(), ours, info });
    }
    if (step.kind === "nothing" || step.kind === "recheck") return;
    if (step.kind === "forget") {
      await putSnooze(ctx, key, record, {});
    } else {
      // Every call is claimed first (a versioned write): of concurrent reconciles one sends it,
      // and a reconcile that finds it in flight for something else comes back (`recheck`).
      const block =
        step.kind === "snooze" ? { blockStart: step.block.start, blockEnd: step.block.end } : {};
      const claim = { ...block, claimedAt: ctx.clock.now() };
      saved = await putSnooze(ctx, key, record, { ...(ours ? { ours } : {}), claim });
      if (step.kind === "snooze") {
        const { endS } = await gateway.setSnooze(target, step.minutes);
        const theirs = step.theirsEndS !== undefined ? { theirsEndS: step.theirsEndS } : {};
        const snoozed = { blockStart: step.block.start, blockEnd: step.block.end, endS };
        await putSnooze(ctx, key, saved, { ours: { ...snoozed, ...theirs } });
      } else {
        if (step.kind === "restore") await gateway.setSnooze(target, step.minutes);
        else await gateway.endSnooze(target);
        await putSnooze(ctx, key, saved, {});
      }
    }
    ctx.log.info("do not disturb followed", { ...key, step: step.kind, reason: step.reason });
  } catch (error: unknown) {
    if (error instanceof VersionConflict) throw error;
    await snoozeFailed(ctx, key, saved, error);
  }
}

/** Stores the DND item with `fields` in place of its snooze and claim. */
async function putSnooze(
  ctx: UseCaseContext,
  key: UserKey,
  current: SnoozeRecord | undefined,
  fields: Pick<SnoozeRecord, "ours" | "claim">,
): Promise<SnoozeRecord> {
  const next: SnoozeRecord = {
    key,
    ...fields,
    version: current?.version ?? 0,
    updatedAt: ctx.clock.now(),
  };
  return ctx.store.putSnooze(next, current?.version);
}

/**
 * A DND call failed. Without the scopes, the person's token is marked as lacking them (once: no
 * DND call is made again until they reinstall); a passing failure comes back later. The claim
 * is released either way; the status goes on regardless.
 */
async function snoozeFailed(
  ctx: UseCaseContext,
  key: UserKey,
  saved: SnoozeRecord | undefined,
  error: unknown,
): Promise<void> {
  const code = error instanceof GatewayError ? error.code : "unexpected";
  if (saved?.claim !== undefined) {
    await putSnooze(ctx, key, saved, saved.ours ? { ours: saved.ours } : {});
  }
  if (NOT_ALLOWED.has(code)) {
    ctx.log.info("do not disturb not allowed for this token; skipped until reinstall", {
      ...key,
      code,
    });
    await mutateUser(ctx, key, (u) => ({
      ...u,
      grantedScopes: (u.grantedScopes ?? []).filter(
        (s) => !(DND_SCOPES as readonly string[]).includes(s),
      ),
    }));
    return;
  }
  ctx.log.warn("do not disturb call failed", { ...key, code });
  if (error instanceof GatewayError && error.retryable) {
    const waitMs = Math.max(RETRY_AFTER_MS, (error.retryAfterS ?? 0) * 1000);
    await enqueueRetry(ctx, key, ctx.clock.now() + waitMs);
  }
}
