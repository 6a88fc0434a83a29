import { randomUUID } from "node:crypto";
import type { ScheduledEvent } from "aws-lambda";
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from "./lambda-context";
import type { Scheduler } from "./scheduler";

/** The event EventBridge sends a scheduled function at `now`, for its rule. */
export const scheduledEvent = (now: number, rule: string): ScheduledEvent => ({
  version: "0",
  id: randomUUID(),
  "detail-type": "Scheduled Event",
  source: "aws.events",
  account: LOCAL_ACCOUNT_ID,
  time: new Date(now).toISOString().replace(/\.\d{3}Z$/, "Z"),
  region: LOCAL_REGION,
  resources: [`arn:aws:events:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:rule/${rule}`],
  detail: {},
});

/**
 * Runs `fn` every `ms` from `firstAt` on the scheduler's clock, as an EventBridge rule: each
 * run schedules the next before it starts, so a slow one never delays the one after.
 */
export function every(
  scheduler: Scheduler,
  options: { ms: number; firstAt: number; rule: string },
  fn: (event: ScheduledEvent) => Promise<unknown>,
): void {
  const fire = (at: number) => {
    scheduler.at(at, async () => {
      fire(at + options.ms);
      await fn(scheduledEvent(scheduler.clock.now(), options.rule));
    });
  };
  fire(options.firstAt);
}
