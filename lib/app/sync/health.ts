import { CalendarError } from "#lib/calendar/errors";
import { ProviderError, SyncError } from "#lib/calendar/providers/errors";
import type { SourceHealth } from "#lib/core/records";
import { type HealthStep, healthAfter, type ReadResult } from "#lib/core/source-health";
import type { UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import { UnknownUserError } from "../errors";
import { lastGoodReadOf } from "../notify/calendar-health";
import { mutateUser } from "../status/records";

/**
 * A calendar's read health, recorded by the sync (lib/core/source-health.ts decides): what one
 * read came to, and the write that follows only when that changes what the person is shown.
 */

/** A sync's outcome (./sync.ts SyncOutcome), as far as its health reads it. */
export interface SyncOutcomeShape {
  kind: string;
  reason?: string;
}

/**
 * What a sync's outcome says of the read: good (applied, or unchanged), failed for good (an
 * address that is gone or refused, a feed too large), or nothing (it did not read: the source
 * is gone, covered by another sync, or waits for its account to be connected again).
 */
export function readResultOf(outcome: SyncOutcomeShape): ReadResult | undefined {
  if (outcome.kind === "applied") return { ok: true };
  if (outcome.kind === "unchanged") {
    return outcome.reason === "not_modified" || outcome.reason === "same_content"
      ? { ok: true }
      : undefined;
  }
  const reason = outcome.reason ?? "";
  const http = /^http_(\d{3})$/.exec(reason);
  if (http?.[1] !== undefined) {
    const status = Number(http[1]);
    return { ok: false, kind: status === 404 || status === 410 ? "gone" : "refused", status };
  }
  if (reason.includes("too_large") || reason.includes("budget")) {
    return { ok: false, kind: "too_large" };
  }
  if (
    reason === "private_address" ||
    reason === "unsupported_url" ||
    reason === "too_many_redirects"
  ) {
    return { ok: false, kind: "address_refused" };
  }
  // unknown_source, unknown_kind, reconnect (its own problem): not a read of this calendar.
  return undefined;
}

/** What a sync that threw says of the read. */
export function readFailureOf(error: unknown): ReadResult {
  if (error instanceof SyncError) {
    if (error.code === "upstream_status") {
      return {
        ok: false,
        kind: error.cause instanceof ProviderError ? "provider" : "server_error",
        ...(error.status !== undefined ? { status: error.status } : {}),
      };
    }
    return { ok: false, kind: "unreachable" };
  }
  if (error instanceof CalendarError && error.code === "unparseable_feed") {
    return { ok: false, kind: "not_calendar" };
  }
  return { ok: false, kind: "failed" };
}

/**
 * Records what a read of `sourceId` came to, when it changes the source's health (a quiet
 * day's good reads of a healthy calendar write nothing; `known` is the health the caller holds,
 * so that it needs no read either). Answers why the person's Home and messages should be looked
 * at again, if they should.
 */
export async function recordReadHealth(
  ctx: UseCaseContext,
  key: UserKey,
  sourceId: string,
  read: ReadResult,
  known: SourceHealth | undefined,
): Promise<HealthStep["notice"]> {
  const now = ctx.clock.now();
  // Nothing can change without a read of the record: healthy, and read well.
  if (read.ok && known?.error === undefined) return undefined;
  let notice: HealthStep["notice"];
  try {
    await mutateUser(ctx, key, (u) => {
      const source = u.sources.find((s) => s.id === sourceId);
      if (source === undefined) return undefined;
      const lastGood = lastGoodReadOf(key, u, source, now, { before: true });
      const step = healthAfter(source.health, read, now, lastGood);
      notice = step.notice;
      if (step.next === undefined) return undefined;
      const health = step.next;
      return { ...u, sources: u.sources.map((s) => (s.id === sourceId ? { ...s, health } : s)) };
    });
  } catch (error: unknown) {
    if (error instanceof UnknownUserError) return undefined;
    throw error;
  }
  return notice;
}
