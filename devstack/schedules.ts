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

/** A running schedule rule, which can be disabled and enabled as EventBridge's rules can. */
export interface ScheduleRule {
  /** The rule's name, as EventBridge's (e.g. `statuspilot-local-tick`). */
  readonly name: string;
  readonly enabled: boolean;
  /** Fires nothing until enabled again: its instants pass with no run and no timer. */
  disable(): void;
  /** Fires again from its next instant (`firstAt` plus a whole number of periods). */
  enable(): void;
}

/**
 * Runs `fn` every `ms` from `firstAt` on the scheduler's clock, as an EventBridge rule: each
 * run schedules the next before it starts, so a slow one never delays the one after.
 */
export function every(
  scheduler: Scheduler,
  options: { ms: number; firstAt: number; rule: string },
  fn: (event: ScheduledEvent) => Promise<unknown>,
): ScheduleRule {
  let cancel: (() => void) | undefined;
  /** The instant of the last run: enabled again at that instant, the rule does not run twice. */
  let lastAt = Number.NEGATIVE_INFINITY;
  const fire = (at: number) => {
    cancel = scheduler.at(at, async () => {
      lastAt = at;
      fire(at + options.ms);
      await fn(scheduledEvent(scheduler.clock.now(), options.rule));
    });
  };
  fire(options.firstAt);
  return {
    name: options.rule,
    get enabled() {
      return cancel !== undefined;
    },
    disable() {
      cancel?.();
      cancel = undefined;
    },
    enable() {
      if (cancel !== undefined) return;
      const periods = Math.ceil((scheduler.clock.now() - options.firstAt) / options.ms);
      const next = options.firstAt + Math.max(0, periods) * options.ms;
      fire(next > lastAt ? next : lastAt + options.ms);
    },
  };
}
