import type { Clock } from "#lib/core/clock";
import type { Queue } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import type { TransitionMessage } from "./contracts";

/**
 * Asks the transition worker to look at what `key` is told (./notify/notices.ts): after a
 * change they may be shown (a calendar's health, a grant, their token, pause or resume), or
 * with `force` when they opened their Home tab. The worker's run is idempotent, so a message
 * sent twice costs reads, not a second message to the person.
 */
export async function queueNotice(
  queue: Queue<TransitionMessage>,
  clock: Clock,
  key: UserKey,
  opts: { force?: boolean; delaySeconds?: number } = {},
): Promise<void> {
  await queue.send(
    {
      team: key.team,
      user: key.user,
      at: clock.now(),
      reason: "notice",
      ...(opts.force === true ? { notice: { force: true } } : {}),
    },
    { delaySeconds: opts.delaySeconds ?? 0 },
  );
}
