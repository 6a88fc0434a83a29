import type { Clock } from "../core/clock";
import type { Log, Queue, SourceRef, SyncGate } from "../core/ports";
import type { SyncMessage } from "./contracts";
import type { SyncOutcome } from "./sync";

/** Rounds one message may run before its trailing sync goes back on the queue. */
export const MAX_SYNC_ROUNDS = 5;

/**
 * The push side: asks the gate, and sends a sync message with no delay when nothing queued or
 * running covers the request. Returns false when the request joined one.
 */
export function createSyncRequester(
  queue: Queue<SyncMessage>,
  gate: SyncGate,
  clock: Clock,
): (msg: SyncMessage) => Promise<boolean> {
  return async (msg) => {
    // Only pushes meet at the gate: a poll or a manual re-sync is rare per source and carries
    // no change to coalesce, so it costs no gate write (a quiet day's polls stay cheap).
    if (msg.reason !== "push") {
      await queue.send(msg, { delaySeconds: 0 });
      return true;
    }
    const now = clock.now();
    const source = refOf(msg);
    if ((await gate.request(source, now)) === "joined") return false;
    try {
      await queue.send(msg, { delaySeconds: 0 });
    } catch (error: unknown) {
      // Best effort: if the withdrawal fails too, the queued mark lapses after its lease.
      await gate.withdraw(source, now).catch(() => undefined);
      throw error;
    }
    return true;
  };
}

export interface GatedSyncDeps {
  gate: SyncGate;
  clock: Clock;
  log: Log;
  /** One sync of the source (lib/app/sync's syncSource over its deps). */
  sync(msg: SyncMessage, requestedAt?: number): Promise<SyncOutcome>;
  /** Where a sync that outran MAX_SYNC_ROUNDS sends its trailing round. */
  queue: Queue<SyncMessage>;
  maxRounds?: number;
}

/**
 * The worker side, for pushes (other syncs run straight through): claims the source for `owner` (the SQS message id, stable across
 * redeliveries, so a redelivery after a crash re-claims at once), syncs, and syncs again while
 * pushes came in during the round. A failed round frees the source and throws, so the queue
 * redelivers the message; a push meanwhile queues a fresh sync at once.
 */
export async function runGatedSync(
  deps: GatedSyncDeps,
  msg: SyncMessage,
  opts: { owner: string; requestedAt?: number },
): Promise<SyncOutcome> {
  if (msg.reason !== "push") return deps.sync(msg, opts.requestedAt);
  const source = refOf(msg);
  const logData = { user: msg.user, team: msg.team, sourceId: msg.sourceId };
  if ((await deps.gate.claim(source, opts.owner, deps.clock.now())) === "handed_over") {
    deps.log.debug("sync coalesced into the running one", logData);
    return { kind: "unchanged", reason: "coalesced" };
  }
  const maxRounds = deps.maxRounds ?? MAX_SYNC_ROUNDS;
  for (let round = 1; ; round++) {
    let outcome: SyncOutcome;
    try {
      // Only the first round may be skipped as covered by an earlier sync: later rounds exist
      // because a push came in after this one's fetch.
      outcome = await deps.sync(msg, round === 1 ? opts.requestedAt : undefined);
    } catch (error: unknown) {
      await deps.gate.release(source, opts.owner).catch((releaseError: unknown) => {
        deps.log.warn("sync gate not released; its claim lapses", {
          ...logData,
          error: releaseError instanceof Error ? releaseError.message : String(releaseError),
        });
      });
      throw error;
    }
    if ((await deps.gate.finish(source, opts.owner, deps.clock.now())) === "done") return outcome;
    if (round >= maxRounds) {
      // A source pushed faster than it syncs: hand the trailing round to a fresh message.
      await deps.gate.release(source, opts.owner);
      const requeued = await deps.gate.request(source, deps.clock.now());
      if (requeued === "queue") await deps.queue.send(msg, { delaySeconds: 0 });
      deps.log.info("sync rounds exhausted; trailing sync queued", { ...logData, rounds: round });
      return outcome;
    }
    deps.log.debug("pushed while syncing; syncing again", { ...logData, round });
  }
}

const refOf = (msg: SyncMessage): SourceRef => ({
  team: msg.team,
  user: msg.user,
  sourceId: msg.sourceId,
});
