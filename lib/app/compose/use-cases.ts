import type { UserKey } from "#lib/core/types";
import { contextOf, type UseCaseDeps } from "../context";
import type { ReconcileOutcome, StatusUseCases, UserAdministration } from "../contracts";
import { outOfOfficeUseCases } from "../people/out-of-office";
import { upsertUser } from "../people/users";
import { getStatusView, getUser, teamsOfUser, userZone } from "../people/views";
import { findChannel, putChannel } from "../push/channels";
import { recordAppUninstalled, recordTokensRevoked, wakeUser } from "../status/app-removal";
import { reconcileUser } from "../status/reconcile";
import { isNothingNew, recordUserChange } from "../status/user-changes";
import { loadSource, recordSourceSync, sourcesDue } from "../sync/sources";
import { applyTimeline, tick } from "../sync/timelines";

export type { UseCaseDeps, UseCaseOptions } from "../context";
export { DEFAULT_OPTIONS } from "../context";

/** Every use case, as handlers, the local stack, benchmarks and tests call them. */
export type UseCases = StatusUseCases & UserAdministration;

/** One user's reconcile (app.ts's ReconcileFn, restated here so use-cases imports no root). */
type ReconcileFn = (key: UserKey) => Promise<ReconcileOutcome>;

/**
 * The use cases over the store, the status gateway, the transition queue and the clock.
 * Writes to one user's status item are conditional on its version; a lost race retries from a
 * fresh read. A status write is claimed on the item before it is sent, so concurrent reconciles
 * send it once.
 */
export function createUseCases(
  deps: UseCaseDeps,
  decorateReconcile: (reconcile: ReconcileFn) => ReconcileFn = (reconcile) => reconcile,
): UseCases {
  // Every reconcile a use case starts (after an event, a timeline, an out-of-office change, a
  // re-authorisation, a recheck) goes through the one decorated reconcile, so a decorator given
  // at composition (the local stack's live log) sees them all.
  const reconcile = decorateReconcile((key) => reconcileUser(ctx, key));
  const ctx = contextOf(deps, reconcile);
  const useCases: UseCases = {
    reconcileUser: reconcile,
    wakeUser: (key) => wakeUser(ctx, key),
    recordUserChange: (change) => recordUserChange(ctx, change),
    isNothingNew: (change) => isNothingNew(ctx, change),
    applyTimeline: (key, blocks, meta) => applyTimeline(ctx, key, blocks, meta),
    tick: () => tick(ctx),
    recordTokensRevoked: (team, users) => recordTokensRevoked(ctx, team, users),
    recordAppUninstalled: (team) => recordAppUninstalled(ctx, team),
    ...outOfOfficeUseCases(ctx),
    upsertUser: (input) => upsertUser(ctx, input),
    getUser: (key) => getUser(ctx, key),
    getStatusView: (key) => getStatusView(ctx, key),
    teamsOfUser: (user) => teamsOfUser(ctx, user),
    userZone: (key) => userZone(ctx, key),
    putChannel: (channelId, binding) => putChannel(ctx, channelId, binding),
    findChannel: (channelId, lookup) => findChannel(ctx, channelId, lookup),
    sourcesDue: (now) => sourcesDue(ctx, now),
    loadSource: (key, sourceId) => loadSource(ctx, key, sourceId),
    recordSourceSync: (key, sourceId, sync) => recordSourceSync(ctx, key, sourceId, sync),
  };
  return useCases;
}
