import type { WorkTimer } from "#lib/core/clock";
import type { FeedLimit } from "#lib/core/records";
import { ExpansionCutShortError } from "./errors";

/**
 * What reading one feed may cost. A feed is a stranger's input: a few kilobytes of RRULEs can
 * ask for millions of occurrences. Each cap is far above what real calendars need (the shared
 * corpus, and the bench's generated Google-style feeds of 5,000 and 20,000 events), so only a
 * feed built to explode reaches one; it is then read up to the cap and marked too large.
 */

/**
 * Instances one event may have near the sync's window (a day back, 14 ahead, and two days'
 * slack each side, so about 19 days): a 15-minute series around the clock has 1,824 there; the
 * busiest event of the 20,000-event bench feed has 12.
 */
export const MAX_OCCURRENCES_PER_EVENT = 2_000;

/** Occurrences one feed may have in the window: the 20,000-event bench feed has 6,337. */
export const MAX_OCCURRENCES_PER_FEED = 25_000;

/**
 * CPU time one feed's parse and expansion may take. The 20,000-event bench feed (4.4 MB) takes
 * 1.4 to 1.9 s of it on one core of the bench machine, a real-shaped feed at the sync's 10 MB cap
 * (45,000 events) about 2.8 s. CPU, not wall time: a loaded machine or Lambda's share of a vCPU (0.29 at 512 MB)
 * stretches the wall time, not the cost, and the invocation's deadline bounds the wall time.
 */
export const EXPANSION_CPU_BUDGET_MS = 5_000;

/**
 * The longest the expansion holds the thread before it lets the event loop run. A request that
 * needs a few dozen turns of the loop (each DynamoDB call, each service call is a few) waits this
 * long at most per turn.
 */
export const EXPANSION_SLICE_MS = 2;

/** How many times in a row the expansion gives way while the event loop stays busy. */
export const EXPANSION_MAX_GIVE_WAYS = 10;

/** A give-way shorter than this found the event loop with nothing else to do. */
const LOOP_IDLE_MS = 0.5;

/** The caps of one expansion (each a named constant above by default). */
export interface ExpansionLimits {
  eventOccurrences: number;
  feedOccurrences: number;
  /** CPU milliseconds (the `time_budget` limit). */
  timeBudgetMs: number;
}

export const DEFAULT_EXPANSION_LIMITS: ExpansionLimits = {
  eventOccurrences: MAX_OCCURRENCES_PER_EVENT,
  feedOccurrences: MAX_OCCURRENCES_PER_FEED,
  timeBudgetMs: EXPANSION_CPU_BUDGET_MS,
};

/** How an expansion is timed: the work timer, and when it must stop whatever its budget. */
export interface ExpansionPace {
  timer: WorkTimer;
  /**
   * An instant on `timer.elapsedMs` (wall time) past which the expansion stops and throws
   * ExpansionCutShortError: the invocation's own deadline (the feed is not to blame; its read
   * is tried again).
   */
  stopBy?: number;
}

/** The feed limits an expansion can reach (the byte cap is the fetch's). */
export type ExpansionLimit = Exclude<FeedLimit, "bytes">;

/**
 * Unwinds the expansion when the feed must stop being read: a feed-wide cap, or the
 * invocation's deadline. Never an event's skip reason: every catch on the way lets it through.
 */
export class ExpansionStopped extends Error {
  override name = "ExpansionStopped";
  constructor(readonly reason: "feed_occurrences" | "time_budget" | "deadline") {
    super(`expansion stopped: ${reason}`);
  }
}

/**
 * A generator of work: each `yield` is a point where the work may give way to the event loop
 * (the slice is over). Run to the end at once (`runToEnd`) or paced (`runPaced`).
 */
export type Work<T> = Generator<undefined, T, undefined>;

/**
 * Counts one feed's work against its caps. `step` is called for every unit of work (a rule's
 * iteration, a date read, an occurrence made) and reads the wall timer, cheap beside any unit;
 * at the end of each slice of EXPANSION_SLICE_MS it reads the CPU time against the budget, so
 * the budget is overrun by a slice at most.
 */
export class WorkMeter {
  private occurrences = 0;
  private eventCapped = false;
  private cpuBeforeSlice = 0;
  private sliceStart = 0;
  private sliceCpuStart = 0;
  private stopped: ExpansionStopped["reason"] | undefined;

  readonly limits: ExpansionLimits;

  constructor(
    limits: Partial<ExpansionLimits> = {},
    private readonly pace?: ExpansionPace,
  ) {
    this.limits = { ...DEFAULT_EXPANSION_LIMITS, ...limits };
    this.resumed();
  }

  /**
   * One unit of work. Throws ExpansionStopped past the deadline or the CPU budget; answers
   * whether the slice is over, so the caller yields.
   */
  step(): boolean {
    if (this.pace === undefined) return false;
    const now = this.pace.timer.elapsedMs();
    if (this.pace.stopBy !== undefined && now >= this.pace.stopBy) this.stop("deadline");
    if (now - this.sliceStart < EXPANSION_SLICE_MS) return false;
    if (this.spentMs() > this.limits.timeBudgetMs) this.stop("time_budget");
    return true;
  }

  /** One occurrence more for the feed; throws ExpansionStopped when it would pass the cap. */
  occurrence(): void {
    if (this.occurrences >= this.limits.feedOccurrences) this.stop("feed_occurrences");
    this.occurrences++;
  }

  /** An event had more instances near the window than its cap: it keeps the first ones. */
  capEvent(): void {
    this.eventCapped = true;
  }

  /** The work gives way: what runs until `resumed` is not the feed's. */
  paused(): void {
    if (this.pace === undefined) return;
    this.cpuBeforeSlice += this.pace.timer.cpuMs() - this.sliceCpuStart;
  }

  /** A new slice begins. */
  resumed(): void {
    if (this.pace === undefined) return;
    this.sliceStart = this.pace.timer.elapsedMs();
    this.sliceCpuStart = this.pace.timer.cpuMs();
  }

  /** CPU milliseconds the work has cost so far. */
  spentMs(): number {
    if (this.pace === undefined) return 0;
    return this.cpuBeforeSlice + this.pace.timer.cpuMs() - this.sliceCpuStart;
  }

  /** The cap the feed reached, if it was not read in full; the feed-wide one first. */
  limitReached(): { limit: ExpansionLimit; cap: number } | undefined {
    const limit: ExpansionLimit | undefined =
      this.stopped === "deadline"
        ? undefined
        : (this.stopped ?? (this.eventCapped ? "event_occurrences" : undefined));
    if (limit === undefined) return undefined;
    const caps: Record<ExpansionLimit, number> = {
      event_occurrences: this.limits.eventOccurrences,
      feed_occurrences: this.limits.feedOccurrences,
      time_budget: this.limits.timeBudgetMs,
    };
    return { limit, cap: caps[limit] };
  }

  /** What an expansion's result adds: the cap reached, if any, and the CPU it cost. */
  outcome(): { truncated?: { limit: ExpansionLimit; cap: number }; spentMs: number } {
    const truncated = this.limitReached();
    return { ...(truncated !== undefined ? { truncated } : {}), spentMs: this.spentMs() };
  }

  private stop(reason: ExpansionStopped["reason"]): never {
    this.stopped ??= reason;
    throw new ExpansionStopped(reason);
  }
}

/**
 * Runs the reading of a feed until a feed-wide cap stops it (what it found is kept); a stop at
 * the deadline throws ExpansionCutShortError.
 */
export function* untilStopped(work: Work<void>): Work<void> {
  try {
    yield* work;
  } catch (error: unknown) {
    if (!(error instanceof ExpansionStopped)) throw error;
    if (error.reason === "deadline") {
      throw new ExpansionCutShortError("the feed was not read before the deadline", {
        cause: error,
      });
    }
  }
}

/** Rethrows what must unwind the whole expansion; anything else is the caller's to handle. */
export function letStopThrough(error: unknown): void {
  if (error instanceof ExpansionStopped) throw error;
}

/** Runs work to its end without giving way (the CLI, tests, a bare `expand`). */
export function runToEnd<T>(work: Work<T>, meter: WorkMeter): T {
  for (;;) {
    const next = work.next();
    if (next.done) return next.value;
    meter.paused();
    meter.resumed();
  }
}

/**
 * Runs work, giving way to the event loop whenever it yields; its pauses are not its own time.
 * It gives way again while the loop comes back busy (others' callbacks ran meanwhile), up to
 * EXPANSION_MAX_GIVE_WAYS times: a feed's expansion waits for everyone else's requests, not
 * the other way round, and still moves on when they never stop.
 */
export async function runPaced<T>(work: Work<T>, meter: WorkMeter, timer: WorkTimer): Promise<T> {
  for (;;) {
    const next = work.next();
    if (next.done) return next.value;
    meter.paused();
    try {
      for (let i = 0; i < EXPANSION_MAX_GIVE_WAYS; i++) {
        const before = timer.elapsedMs();
        await timer.giveWay();
        if (timer.elapsedMs() - before < LOOP_IDLE_MS) break;
      }
    } catch (error: unknown) {
      // The work ends here (its invocation did): the generator's finally blocks run.
      work.return(undefined as T);
      throw error;
    }
    meter.resumed();
  }
}
