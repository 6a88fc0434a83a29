import type { Scheduler } from "#devstack/scheduler";
import type { RunningEmulator } from "#emulator/server";
import type { ReconcileFn } from "#lib/app/compose/app";
import type { ReconcileOutcome } from "#lib/app/contracts";
import type { Clock } from "#lib/core/clock";
import type { UserKey } from "#lib/core/types";
import { type LiveEvent, ourProfileSets } from "./live-log";

/**
 * The live log as a decorator of the reconcile, given to the dev stack's composition
 * (`decorateReconcile`): it reports what each reconcile decided, the use cases' own internal
 * reconciles included. The handlers themselves are unchanged.
 */
export function liveLogDecorator(deps: {
  clock: Clock;
  live: (e: LiveEvent) => void;
  emulator: RunningEmulator | undefined;
  /** Our app: only calls with a token issued to it are ours. */
  appId: string | undefined;
  scheduler: Scheduler;
  expiryGraceMs: number;
}): (reconcile: ReconcileFn) => ReconcileFn {
  return (reconcile) => observeOutcomes(reconcile, deps);
}

function observeOutcomes(
  reconcile: ReconcileFn,
  deps: Parameters<typeof liveLogDecorator>[0],
): ReconcileFn {
  const lastSeq = new Map<string, number>();
  const lastLine = new Map<string, string>();
  /** Bumped on every line about a user, so an expiry check knows nothing happened since. */
  const generation = new Map<string, number>();
  /**
   * After a set, says when the service's own expiry cleared it (no call from us), unless we or
   * the user changed the status before then.
   */
  const watchExpiry = (user: string, expirationS: number) => {
    const expected = generation.get(user) ?? 0;
    deps.scheduler.at(expirationS * 1000 + deps.expiryGraceMs, () => {
      if ((generation.get(user) ?? 0) !== expected) return;
      const profile = deps.emulator?.state().profiles[user];
      if (profile && (profile.status_text !== "" || profile.status_emoji !== "")) return;
      generation.set(user, expected + 1);
      lastLine.set(user, "expired");
      deps.live({ kind: "expired", at: expirationS * 1000, user, calls: 0 });
    });
  };
  const callsSince = (user: string): number => {
    if (!deps.emulator || deps.appId === undefined) return 1;
    const calls = deps.emulator.calls();
    const ours = ourProfileSets(calls, { app: deps.appId, user }, lastSeq.get(user) ?? 0);
    const last = calls.at(-1);
    if (last) lastSeq.set(user, last.seq);
    return Math.max(1, ours);
  };
  return async (key: UserKey): Promise<ReconcileOutcome> => {
    const outcome = await reconcile(key);
    const at = deps.clock.now();
    const user = key.user;
    const emit = (event: LiveEvent, signature: string) => {
      // One line per change: a repeated "leave" or retry is not news.
      if (lastLine.get(user) === signature && event.kind !== "set" && event.kind !== "clear")
        return;
      lastLine.set(user, signature);
      generation.set(user, (generation.get(user) ?? 0) + 1);
      deps.live(event);
      if (event.kind === "set" && event.expiration > 0) watchExpiry(user, event.expiration);
    };
    switch (outcome.kind) {
      case "set":
        emit(
          {
            kind: "set",
            at,
            user,
            text: outcome.text,
            emoji: outcome.emoji,
            expiration: outcome.expiration,
            calls: callsSince(user),
          },
          "set",
        );
        break;
      case "clear":
        emit({ kind: "clear", at, user, calls: callsSince(user) }, "clear");
        break;
      case "leave":
      case "needs_reauth":
      case "conflict_retried_out":
        // A repeated outcome with the same reason is not news; a new reason is.
        emit({ kind: "unchanged", at, user, outcome }, JSON.stringify(outcome));
        break;
      case "rescheduled":
        emit(
          { kind: "retry", at, user, code: outcome.code, retryAt: outcome.at },
          `retry:${outcome.code}`,
        );
        break;
      case "nothing":
        break;
    }
    return outcome;
  };
}
