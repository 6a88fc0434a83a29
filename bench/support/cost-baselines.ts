import { expand } from "#lib/calendar/expand";
import { ManualClock } from "#lib/core/clock";
import { renderIcs } from "#lib/local/demo-feed";
import { startIcsServer } from "#lib/local/ics-server";
import {
  DAYS_PER_MONTH,
  MEMORY_GB,
  PLATFORM_LOG_BYTES,
  PRICES,
  REALISTIC_FETCH_MS,
  TENANTS_PER_POLL,
} from "./cost-model";
import type { CostResult } from "./cost-result";
import { DAY, eventsFor, MONTH_START } from "./cost-sim";
import { quantile, round } from "./stats";

// The baselines the cost bench sets Statuspilot beside: a bot that polls each user's feed every
// minute, and a multi-tenant poller serving TENANTS_PER_POLL users a run.

/** One poll-bot run: fetch the whole feed and expand today's events, median of 15 (warm). */
async function pollWorkMs(ics: string, at: number): Promise<number> {
  const server = await startIcsServer({ clock: new ManualClock(at), feeds: { "/cal.ics": ics } });
  try {
    const times: number[] = [];
    for (let i = 0; i < 15; i++) {
      const t0 = performance.now();
      const text = await (await fetch(server.feedUrl("/cal.ics"))).text();
      await expand(text, { from: at - DAY, to: at, userZone: "UTC" });
      times.push(performance.now() - t0);
    }
    return quantile(times, 0.5);
  } finally {
    await server.close();
  }
}

/** What the simulation measured that the baselines' figures need, per user-day. */
export interface BaselineInputs {
  days: number;
  /** Busy blocks: the poll bot sets at each one's start and clears at its end. */
  profileSetsPerUserDay: number;
  /** Busy minutes: what a bot that sets every minute while busy would set. */
  busyMinutesPerUserDay: number;
}

/**
 * The poll-every-minute baseline, per user: one invocation a minute that fetches the feed and
 * expands today (timed here on user 0's feed, warm), sets the status when the block it is in
 * changes and clears it when the block ends; it remembers what it set in instance memory, so
 * no database, no queue, no profile reads. Beside it the multi-tenant poller.
 */
export async function pollBaselines(
  inputs: BaselineInputs,
): Promise<Pick<CostResult, "poll" | "multiPoll">> {
  const end = MONTH_START + inputs.days * DAY;
  const pollMs = await pollWorkMs(renderIcs(eventsFor(0, inputs.days, end), MONTH_START), end);
  const pollGbSeconds = 1440 * (pollMs / 1000) * MEMORY_GB;
  /** A poller's US$ per user-month: `runs` invocations a user-day, each fetch `fetchMs` long. */
  const pollerUsd = (runs: number, fetchMs: number) =>
    (runs * PRICES.lambdaRequest +
      1440 * ((fetchMs / 1000) * MEMORY_GB) * PRICES.lambdaGbSecond +
      ((runs * PLATFORM_LOG_BYTES) / 1e9) * PRICES.logsIngestGb) *
    DAYS_PER_MONTH;
  const multiRuns = 1440 / TENANTS_PER_POLL;
  return {
    poll: {
      runMs: round(pollMs),
      invocationsPerUserDay: 1440,
      profileSetsPerUserDay: round(inputs.profileSetsPerUserDay, 2),
      profileSetsEveryMinutePerUserDay: round(inputs.busyMinutesPerUserDay, 1),
      gbSecondsPerUserDay: round(pollGbSeconds, 2),
      usdPerUserMonth: round(pollerUsd(1440, pollMs), 5),
      usdPerUserMonthRealisticFetch: round(pollerUsd(1440, pollMs + REALISTIC_FETCH_MS), 5),
    },
    multiPoll: {
      invocationsPerUserDay: multiRuns,
      gbSecondsPerUserDay: round(pollGbSeconds, 2),
      usdPerUserMonth: round(pollerUsd(multiRuns, pollMs), 5),
      usdPerUserMonthRealisticFetch: round(pollerUsd(multiRuns, pollMs + REALISTIC_FETCH_MS), 5),
    },
  };
}
