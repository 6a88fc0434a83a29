import type { UserMode } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { contextOf, type UseCaseDeps } from "../context";
import type { ReconcileOutcome } from "../contracts";
import { type OutOfOfficeUseCases, outOfOfficeUseCases } from "./out-of-office";
import { setMode } from "./user-mode";

/** The use cases slash commands run: out-of-office, and pausing or resuming. */
export interface DeferredCommandUseCases extends OutOfOfficeUseCases {
  setMode(key: UserKey, mode: UserMode): Promise<UserMode>;
}

/**
 * The out-of-office use cases for callers that must answer before the service could: the
 * reconcile they would run inline goes on the transition queue instead, with no delay, and the
 * transition worker runs it a moment later. The store writes themselves (scheduling or
 * cancelling an entry) still happen at once, so the caller can say what was done.
 *
 * The `/ooo` and `/statuspilot` slash commands use them: the service gives a command 3 seconds to be answered, and
 * a reconcile is one or two service calls (read before write, then set), each as slow as the
 * service is.
 */
export function createDeferredReconcileUseCases(deps: UseCaseDeps): DeferredCommandUseCases {
  /**
   * Queues the reconcile (at-least-once: the worker's reconcile is idempotent). No dedupe key:
   * two commands in the same second are two changes, and each needs its reconcile.
   */
  const queueReconcile = async (key: UserKey): Promise<ReconcileOutcome> => {
    const at = deps.clock.now();
    await deps.transitionQueue.send(
      { team: key.team, user: key.user, at, reason: "ooo" },
      { delaySeconds: 0 },
    );
    return { kind: "rescheduled", at, code: "queued" };
  };
  const ctx = contextOf(deps, queueReconcile);
  return { ...outOfOfficeUseCases(ctx), setMode: (key, mode) => setMode(ctx, key, mode) };
}
