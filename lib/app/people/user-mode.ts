import type { UserMode } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import { queueNotice } from "../notice-queue";
import { mutateUser } from "../status/records";

/**
 * Pauses or resumes a user's automatic statuses; returns the mode they were in. The profile
 * follows from the reconcile (inline, or queued for callers that must answer first): paused
 * clears what Statuspilot set, resumed applies the timeline again. An unknown user throws.
 */
export async function setMode(
  ctx: UseCaseContext,
  key: UserKey,
  mode: UserMode,
): Promise<UserMode> {
  let before: UserMode = mode;
  await mutateUser(ctx, key, (u) => {
    before = u.mode;
    return { ...u, mode };
  });
  if (before !== mode) {
    await ctx.reconcile(key);
    // The Home tab shows the mode.
    await queueNotice(ctx.queue, ctx.clock, key);
  }
  return before;
}
