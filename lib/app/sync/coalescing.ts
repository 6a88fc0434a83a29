import type { Clock } from "#lib/core/clock";
import type { Log, Queue, SourceRef, SyncGate } from "#lib/core/ports";
import type { PollBatchMessage, SyncMessage } from "../contracts";
import { forEachBounded, sendEntries } from "../queue-sends";
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
  /** One sync of the source (lib/app/sync/sync's syncSource over its deps). */
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

/** Sources one poll message carries: a tenth of the queue requests and invocations per check. */
export const POLL_SOURCES_PER_MESSAGE = 10;
/** Feeds one poll message fetches at a time (each waits mostly on the calendar's host). */
export const POLL_FETCH_CONCURRENCY = 5;

/** How long a poll check that failed waits before it is tried again alone. */
export const POLL_RETRY_DELAY_S = 60;

/**
 * The poll's side: the sources due go on the sync queue POLL_SOURCES_PER_MESSAGE to a message,
 * up to ten messages a request. Polls meet no sync gate (see createSyncRequester). Returns the
 * messages sent.
 */
export async function sendPollChecks(
  queue: Queue<PollBatchMessage>,
  due: SyncMessage[],
): Promise<number> {
  const messages: PollBatchMessage[] = [];
  for (let i = 0; i < due.length; i += POLL_SOURCES_PER_MESSAGE) {
    messages.push({ reason: "poll", sources: due.slice(i, i + POLL_SOURCES_PER_MESSAGE) });
  }
  await sendEntries(
    queue,
    messages.map((message) => ({ message, delaySeconds: 0 })),
  );
  return messages.length;
}

export interface PollBatchDeps {
  log: Log;
  /** One source's check (the app's syncSource). */
  sync(msg: SyncMessage, requestedAt?: number): Promise<SyncOutcome>;
  /** Where a source whose check failed goes again, alone, to be retried and dead-lettered. */
  queue: Queue<SyncMessage>;
  concurrency?: number;
}

/** What a poll message's checks came to, by outcome (`failed`: re-queued alone). */
export type PollBatchTally = Record<"applied" | "unchanged" | "skipped" | "failed", number>;

/**
 * The worker's side of a poll message: checks its sources, `concurrency` feeds at a time. A
 * source whose check throws goes back on the queue in a message of its own, so its retries and
 * its dead letter are its own and the others are not fetched again; only if that send fails does
 * this throw (and the whole message comes back, every check being safe to repeat).
 */
export async function runPollBatch(
  deps: PollBatchDeps,
  batch: PollBatchMessage,
  requestedAt?: number,
): Promise<PollBatchTally> {
  const tally: PollBatchTally = { applied: 0, unchanged: 0, skipped: 0, failed: 0 };
  const failed: SyncMessage[] = [];
  const check = async (msg: SyncMessage) => {
    try {
      tally[(await deps.sync(msg, requestedAt)).kind]++;
    } catch (error: unknown) {
      tally.failed++;
      failed.push(msg);
      deps.log.warn("poll check failed; queued again alone", {
        user: msg.user,
        team: msg.team,
        sourceId: msg.sourceId,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };
  await forEachBounded(batch.sources, deps.concurrency ?? POLL_FETCH_CONCURRENCY, check);
  await sendEntries(
    deps.queue,
    failed.map((message) => ({ message, delaySeconds: POLL_RETRY_DELAY_S })),
  );
  // One line per message, not per source, and at INFO only when a check did something: a
  // quiet day's checks log nothing at the deployed level.
  const quiet = tally.unchanged === batch.sources.length;
  deps.log[quiet ? "debug" : "info"]("poll checks done", {
    sources: batch.sources.length,
    ...tally,
  });
  return tally;
}
