import type { UserKey } from "../core/types";
import { contextOf, type UseCaseDeps } from "./context";
import type { ReconcileOutcome } from "./contracts";
import { type OutOfOfficeUseCases, outOfOfficeUseCases } from "./out-of-office";

/**
 * The out-of-office use cases for callers that must answer before the service could: the
 * reconcile they would run inline goes on the transition queue instead, with no delay, and the
 * transition worker runs it a moment later. The store writes themselves (scheduling or
 * cancelling an entry) still happen at once, so the caller can say what was done.
 *
 * The `/ooo` slash command uses them: the service gives a command 3 seconds to be answered, and
 * a reconcile is one or two service calls (read before write, then set), each as slow as the
 * service is.
 */
export function createDeferredReconcileUseCases(deps: UseCaseDeps): OutOfOfficeUseCases {
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
  return outOfOfficeUseCases(contextOf(deps, queueReconcile));
}
