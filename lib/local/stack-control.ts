import type { IncomingMessage } from "node:http";
import * as z from "zod";
import type { DelayQueue } from "#devstack/queue";
import { ManualScheduler, RealTimeScheduler, type Scheduler } from "#devstack/scheduler";
import type { ScheduleRule } from "#devstack/schedules";
import type { RunningEmulator } from "#emulator/server";
import type { SyncMessage, TransitionMessage } from "#lib/app/contracts";
import type { Clock } from "#lib/core/clock";
import type { LocalEndpoint } from "../../devstack/http-gateway";
import type { LiveEvent } from "./live-log";
import type { LocalUserConfig } from "./stack-types";
import type { LocalUserAdmin } from "./stack-users";

const DAY_MS = 86_400_000;

/** `POST /_local/clock`: move a manual clock by an amount or to an instant (epoch ms). */
const clockMove = z.union([
  z
    .object({
      advanceMs: z
        .number()
        .int()
        .min(0)
        .max(366 * DAY_MS),
    })
    .strict(),
  z.object({ to: z.number().int().min(0) }).strict(),
]);

/** `POST /_local/schedules`: enable or disable the tick's and the poll's rules (or one of them). */
const schedulesSwitch = z
  .object({
    enabled: z.boolean(),
    rules: z
      .array(z.enum(["tick", "poll"]))
      .min(1)
      .optional(),
  })
  .strict();

type LocalAnswer = { status: number; body: unknown };

const badRequest = (message: string): LocalAnswer => ({
  status: 400,
  body: { error: "invalid_request", message },
});

/** What the control surface reads and moves of a running stack. */
export interface ControlDeps {
  clock: Clock;
  mode: "real" | "manual";
  /**
   * Moves the clock to an instant: a manual clock, running what falls due on the way; a real
   * one started skippable, by skipping ahead. Absent: the clock cannot be moved.
   */
  moveClock: ((epochMs: number) => Promise<void>) | undefined;
  /** Waits until nothing is in flight and the scheduler is idle. */
  settle(): Promise<void>;
  /** The tick's and the poll's schedule rules. */
  schedules: readonly ScheduleRule[];
  /** The generic hooks of every registered source. */
  hooks(): ReadonlyArray<{
    team: string;
    user: string;
    sourceId: string;
    channelId: string;
    secret: string;
  }>;
  /** The handlers' base URL. */
  url: string;
  liveEvents(): readonly LiveEvent[];
  users: readonly LocalUserConfig[];
  admin: LocalUserAdmin;
  /** Connected calendars' push channels of a user: state and expiry (issue 14). */
  pushStates(key: { team: string; user: string }): Promise<unknown[]>;
  emulator: RunningEmulator | undefined;
  queues: { transition: DelayQueue<TransitionMessage>; sync: DelayQueue<SyncMessage> };
}

/**
 * The team of a user id, looked up in the store (whether they were configured at start or
 * installed through the web), or the answer that there is none, or more than one.
 */
async function teamOf(deps: ControlDeps, user: string): Promise<string | LocalAnswer> {
  const stored = (await deps.admin.teamsOfUser?.(user)) ?? [];
  const configured = deps.users.filter((u) => u.user === user).map((u) => u.team);
  const teams = [...new Set([...stored, ...configured])].sort();
  if (teams.length === 1 && teams[0] !== undefined) return teams[0];
  if (teams.length === 0) {
    return {
      status: 404,
      body: { error: "unknown_user", message: `no user ${user} in this stack` },
    };
  }
  return {
    status: 409,
    body: {
      error: "ambiguous_user",
      teams,
      message: `user ${user} is in teams ${teams.join(", ")}: name one with --team`,
    },
  };
}

/**
 * How `POST /_local/clock` moves the stack's clock: a manual one by running what falls due on
 * the way, a real one started skippable by skipping ahead; otherwise it cannot be moved.
 */
export function clockMover(scheduler: Scheduler, skippable: boolean): ControlDeps["moveClock"] {
  if (scheduler instanceof ManualScheduler) return (to) => scheduler.advanceTo(to);
  if (skippable && scheduler instanceof RealTimeScheduler) {
    return async (to) => scheduler.skipAhead(to - scheduler.clock.now());
  }
  return undefined;
}

/**
 * The local control surface (`/_local/...`): loopback only, outside the API Gateway routes.
 * Move a manual clock, wait for quiet, list the hooks, read the live log, a user's status and
 * the queues.
 */
export function controlEndpoint(deps: ControlDeps): LocalEndpoint {
  const { clock, moveClock } = deps;
  return async function localEndpoint(
    req: IncomingMessage,
    url: URL,
    rawBody: string,
  ): Promise<LocalAnswer | undefined> {
    if (url.pathname === "/_local/clock") {
      if (req.method === "GET") return { status: 200, body: { now: clock.now(), mode: deps.mode } };
      if (req.method !== "POST") return undefined;
      if (moveClock === undefined) {
        return {
          status: 409,
          body: {
            error: "not_manual_clock",
            message:
              "the clock can be moved only in a stack started with manual time (or skippable)",
          },
        };
      }
      let json: unknown;
      try {
        json = JSON.parse(rawBody);
      } catch {
        return badRequest('body must be JSON: {"advanceMs": N} or {"to": epochMs}');
      }
      const move = clockMove.safeParse(json);
      if (!move.success) {
        return badRequest(
          'body must be {"advanceMs": N} (0 to 366 days) or {"to": epochMs}, nothing else',
        );
      }
      const to = "to" in move.data ? move.data.to : clock.now() + move.data.advanceMs;
      if (to < clock.now()) {
        return badRequest(`the clock only moves forward; it is ${clock.now()} now`);
      }
      await moveClock(to);
      return { status: 200, body: { now: clock.now() } };
    }
    if (url.pathname === "/_local/settle" && req.method === "POST") {
      await deps.settle();
      return { status: 200, body: { now: clock.now() } };
    }
    if (url.pathname === "/_local/schedules" && req.method === "POST") {
      // As EventBridge's DisableRule / EnableRule: a test crosses idle days of a manual clock
      // without thousands of ticks that find nothing, then ticks again before what it checks.
      let parsed: ReturnType<typeof schedulesSwitch.safeParse> | undefined;
      try {
        parsed = schedulesSwitch.safeParse(JSON.parse(rawBody));
      } catch {}
      if (!parsed?.success) {
        return badRequest('body must be {"enabled": true|false, "rules"?: ["tick"|"poll", ...]}');
      }
      const { enabled, rules } = parsed.data;
      const named = (rule: ScheduleRule) =>
        rules === undefined || rules.some((r) => rule.name.endsWith(`-${r}`));
      for (const rule of deps.schedules.filter(named)) {
        if (enabled) rule.enable();
        else rule.disable();
      }
      return { status: 200, body: { enabled, ...(rules !== undefined ? { rules } : {}) } };
    }
    if (url.pathname === "/_local/hooks" && req.method === "GET") {
      // The generic hooks' secrets, for tools on this machine that push calendar changes.
      return {
        status: 200,
        body: {
          hooks: deps.hooks().map((h) => ({
            ...h,
            url: `${deps.url}/hooks/generic/${encodeURIComponent(h.channelId)}`,
          })),
        },
      };
    }
    if (url.pathname === "/_local/live" && req.method === "GET") {
      const from = Number(url.searchParams.get("from") ?? "0");
      if (!Number.isInteger(from) || from < 0) return badRequest("from must be an integer >= 0");
      return {
        status: 200,
        body: { events: deps.liveEvents().slice(from), next: deps.liveEvents().length },
      };
    }
    const status = /^\/_local\/status\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && status?.[1]) {
      const user = decodeURIComponent(status[1]);
      const team = url.searchParams.get("team") ?? (await teamOf(deps, user));
      if (typeof team !== "string") return team;
      const admin = deps.admin;
      const view = await admin.getStatusView?.({ team, user });
      if (admin.getStatusView && view === undefined) {
        return {
          status: 404,
          body: { error: "unknown_user", message: `no user ${user} in team ${team}` },
        };
      }
      const profile = deps.emulator?.state().profiles[user];
      return {
        status: 200,
        body: {
          team,
          user,
          now: clock.now(),
          view: view ?? null,
          profile: profile
            ? {
                text: profile.status_text,
                emoji: profile.status_emoji,
                expiration: profile.status_expiration,
              }
            : null,
          // Connected calendars' push channels: state and expiry (issue 14).
          pushes: await deps.pushStates({ team, user }),
        },
      };
    }
    if (req.method === "GET" && url.pathname === "/_local/queues") {
      return {
        status: 200,
        body: {
          transition: deps.queues.transition.stats(),
          sync: deps.queues.sync.stats(),
          deadLetters: [...deps.queues.transition.deadLetters(), ...deps.queues.sync.deadLetters()],
        },
      };
    }
    return undefined;
  };
}
