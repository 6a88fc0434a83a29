import { randomUUID } from "node:crypto";
import type { Clock } from "#lib/core/clock";
import type {
  AgendaStore,
  Log,
  Metrics,
  Queue,
  RateBudget,
  SnoozeGateway,
  StatusGateway,
  StatusStore,
  TokenRefresher,
  TokenVault,
} from "#lib/core/ports";
import { silentMetrics } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import type { ReconcileOutcome, TransitionMessage } from "./contracts";

/** What the use cases are built from, and the knobs they read. */

export interface UseCaseOptions {
  /** How far ahead the tick looks: the minute between ticks plus a margin. */
  tickHorizonMs: number;
  /** Unused: the tick reads the due index from 0, so no missed transition is left behind. */
  tickLookbackMs: number;
  /** A transition this overdue was lost (its message failed or vanished); the tick re-enqueues it. */
  lostTransitionGraceMs: number;
  /** While a write is in flight, a different decision is looked at again after this long. */
  inFlightRecheckMs: number;
  /** Rescheduled by the rate budget, other writes wait this much longer than out-of-office. */
  budgetOooLeadMs: number;
  /** Bounded retries from a fresh read after a lost conditional write. */
  maxConflictRetries: number;
  /** How long a claimed write blocks other writes of the same user. */
  pendingLeaseMs: number;
  backoffBaseS: number;
  backoffMaxS: number;
  /** Blocks that ended longer ago than this are dropped from stored timelines. */
  keepPastMs: number;
  /**
   * Read the profile (`users.profile.get`) before every write, so a manual status whose
   * `user_change` was lost is left alone. Costs one read per write; reads are not charged to
   * the write budget of spec 8.1. Off or on, a write that depends on a standing override or a
   * same-second tie reads first (plan's `read` step).
   */
  verifyBeforeWrite: boolean;
  /**
   * Whether sources may name loopback and private addresses. Only the local stack allows them;
   * on AWS they would let a source's owner reach the account's network (SSRF).
   */
  allowPrivateSourceAddresses: boolean;
  /** A rotating token that expires within this margin is refreshed before it is used. */
  tokenRefreshMarginMs: number;
  /** How long one worker may hold the right to spend a user's refresh token. */
  tokenRefreshLeaseMs: number;
  /** After `app_uninstalled`, a team's data is kept this long (a reinstall keeps it), then deleted. */
  uninstallGraceMs: number;
}

export const DEFAULT_OPTIONS: UseCaseOptions = {
  tickHorizonMs: 70_000,
  tickLookbackMs: 15 * 60_000,
  lostTransitionGraceMs: 2 * 60_000,
  inFlightRecheckMs: 1_000,
  budgetOooLeadMs: 2_000,
  maxConflictRetries: 60,
  pendingLeaseMs: 30_000,
  backoffBaseS: 5,
  backoffMaxS: 900,
  keepPastMs: 3_600_000,
  verifyBeforeWrite: true,
  allowPrivateSourceAddresses: false,
  tokenRefreshMarginMs: 10 * 60_000,
  tokenRefreshLeaseMs: 15_000,
  uninstallGraceMs: 7 * 24 * 3_600_000,
};

export interface UseCaseDeps {
  store: StatusStore;
  gateway: StatusGateway;
  transitionQueue: Queue<TransitionMessage>;
  clock: Clock;
  log: Log;
  tokens: TokenVault;
  options?: Partial<UseCaseOptions>;
  newId?: () => string;
  /** The per-token budget shared by all workers; without it only the client's in-memory one applies. */
  rateBudget?: RateBudget;
  /** Renews rotating tokens; without it a token is used as stored until it expires. */
  tokenRefresher?: TokenRefresher;
  /** Operational metrics (lib/app/metrics/catalog.ts); none without it. */
  metrics?: Metrics;
  /** Where each calendar's events near today are kept for the settings page; none without it. */
  agenda?: AgendaStore;
  /** The person's Do Not Disturb snooze (lib/app/status/dnd.ts); without it none is set. */
  snoozes?: SnoozeGateway;
}

/** How a use case has a user reconciled after changing what they should show. */
export type Reconcile = (key: UserKey) => Promise<ReconcileOutcome>;

/** The deps with every default filled in, as each use case reads them. */
export interface UseCaseContext {
  store: StatusStore;
  gateway: StatusGateway;
  queue: Queue<TransitionMessage>;
  clock: Clock;
  log: Log;
  tokens: TokenVault;
  options: UseCaseOptions;
  newId: () => string;
  rateBudget: RateBudget | undefined;
  tokenRefresher: TokenRefresher | undefined;
  metrics: Metrics;
  agenda: AgendaStore | undefined;
  snoozes: SnoozeGateway | undefined;
  /**
   * Every reconcile a use case starts goes through this: inline (the use cases' own
   * reconcileUser), or queued for callers that must answer first.
   */
  reconcile: Reconcile;
}

export const contextOf = (deps: UseCaseDeps, reconcile: Reconcile): UseCaseContext => ({
  store: deps.store,
  gateway: deps.gateway,
  queue: deps.transitionQueue,
  clock: deps.clock,
  log: deps.log,
  tokens: deps.tokens,
  options: { ...DEFAULT_OPTIONS, ...deps.options },
  newId: deps.newId ?? randomUUID,
  rateBudget: deps.rateBudget,
  tokenRefresher: deps.tokenRefresher,
  metrics: deps.metrics ?? silentMetrics,
  agenda: deps.agenda,
  snoozes: deps.snoozes,
  reconcile,
});
