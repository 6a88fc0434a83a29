import type { Clock } from "../core/clock";
import type { Queue } from "../core/ports";
import type { UserKey } from "../core/types";
import type { ReconcileOutcome, TransitionMessage } from "./contracts";
import { StatusPilot, type StatusPilotDeps } from "./statuspilot";

/**
 * StatusPilot for callers that must answer before the service could: every reconcile its use
 * cases would run inline goes on the transition queue instead, with no delay, and the transition
 * worker runs it a moment later. The store writes themselves (scheduling or cancelling an
 * out-of-office entry) still happen at once, so the caller can say what was done.
 *
 * The `/ooo` slash command uses it: the service gives a command 3 seconds to be answered, and a
 * reconcile is one or two service calls (read before write, then set), each as slow as the
 * service is.
 */
export class DeferredReconcilePilot extends StatusPilot {
  private readonly reconcileQueue: Queue<TransitionMessage>;
  private readonly queueClock: Clock;

  constructor(deps: StatusPilotDeps) {
    super(deps);
    this.reconcileQueue = deps.transitionQueue;
    this.queueClock = deps.clock;
  }

  /**
   * Queues the reconcile (at-least-once: the worker's reconcile is idempotent). No dedupe key:
   * two commands in the same second are two changes, and each needs its reconcile.
   */
  override async reconcileUser(key: UserKey): Promise<ReconcileOutcome> {
    const at = this.queueClock.now();
    await this.reconcileQueue.send(
      { team: key.team, user: key.user, at, reason: "ooo" },
      { delaySeconds: 0 },
    );
    return { kind: "rescheduled", at, code: "queued" };
  }
}
