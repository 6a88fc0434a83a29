/** Takes a snapshot of a running emulator's model and OAuth grants, and starts them from one. */
import type { EmulatorModel } from "./model";
import type { OAuthGrants } from "./oauth-grants";
import { type EmulatorSnapshot, SNAPSHOT_VERSION } from "./snapshot";

export function takeSnapshot(model: EmulatorModel, grants: OAuthGrants): EmulatorSnapshot {
  return structuredClone({
    version: SNAPSHOT_VERSION,
    team: model.team.id,
    profiles: Object.fromEntries(model.profiles),
    tokens: [...model.tokens.values()],
    apps: [...model.apps.values()].map((a) => ({ id: a.app.id, manifest: a.manifest })),
    createdApps: [...model.createdApps].flatMap((id) => {
      const app = model.apps.get(id)?.app;
      return app ? [{ ...app, manifest: app.manifest }] : [];
    }),
    pendingEmails: model.pendingEmails,
    ...grants.save(),
    counters: model.counters(),
    home: model.home.save(),
    dnd: model.dnd.save(),
  });
}

/**
 * Applies a snapshot validated by `parseSnapshot` over the state the workspace file built: what
 * the snapshot holds wins, and what the file added since (a new user, token or app) stays.
 */
export function applySnapshot(
  model: EmulatorModel,
  grants: OAuthGrants,
  snapshot: EmulatorSnapshot,
): void {
  const copy = structuredClone(snapshot);
  for (const [id, profile] of Object.entries(copy.profiles)) model.profiles.set(id, profile);
  for (const token of copy.tokens) model.tokens.set(token.token, token);
  for (const app of copy.createdApps) {
    if (model.apps.has(app.id)) continue;
    model.apps.set(app.id, { app, manifest: app.manifest });
    model.createdApps.add(app.id);
  }
  for (const { id, manifest } of copy.apps) {
    const state = model.apps.get(id);
    if (state) state.manifest = manifest;
  }
  model.pendingEmails.splice(0, model.pendingEmails.length, ...copy.pendingEmails);
  model.restoreCounters(copy.counters);
  if (copy.home) model.home.restore(copy.home);
  if (copy.dnd) model.dnd.restore(copy.dnd);
  grants.restore(copy);
}
