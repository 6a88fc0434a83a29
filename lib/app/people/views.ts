import { overrideActive } from "#lib/core/reconcile/state";
import type { StatusRecord, UserRecord } from "#lib/core/records";
import { desiredAt } from "#lib/core/timeline";
import type { UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import type { StatusView, UserView } from "../contracts";
import { shownAddress } from "../secrets/source-address";
import { rulesOf, timelineOf } from "../status/desired-timeline";
import { newStatusRecord } from "../status/records";

/** Read-only views of a user and their status, without tokens or secrets. */

export function viewOf(
  ctx: UseCaseContext,
  user: UserRecord,
  status: StatusRecord | undefined,
): UserView {
  const reauth = status?.state.needsReauth;
  return {
    key: user.key,
    tz: user.tz,
    mode: user.mode,
    ...(user.adminTokenUser !== undefined ? { adminTokenUser: user.adminTokenUser } : {}),
    emails: user.emails,
    sources: user.sources.map((s) => ({
      id: s.id,
      kind: s.kind,
      ...(s.syncedAt !== undefined ? { syncedAt: s.syncedAt } : {}),
      ...(s.name !== undefined ? { name: s.name } : {}),
    })),
    rules: rulesOf(ctx.log, user),
    ...(reauth !== undefined ? { needsReauth: reauth } : {}),
  };
}

export async function getUser(ctx: UseCaseContext, key: UserKey): Promise<UserView | undefined> {
  const snap = await ctx.store.loadUser(key);
  return snap.user === undefined ? undefined : viewOf(ctx, snap.user, snap.status);
}

export async function userZone(ctx: UseCaseContext, key: UserKey): Promise<string | undefined> {
  return (await ctx.store.getUser(key))?.tz;
}

/** The teams in which the user id has a profile, sorted (a full read of the table: rare lookups). */
export async function teamsOfUser(ctx: UseCaseContext, user: string): Promise<string[]> {
  return (await ctx.store.usersWithId(user)).map((u) => u.key.team).sort();
}

export async function getStatusView(
  ctx: UseCaseContext,
  key: UserKey,
): Promise<StatusView | undefined> {
  const now = ctx.clock.now();
  const snap = await ctx.store.loadUser(key);
  if (snap.user === undefined) return undefined;
  const rec = snap.status ?? newStatusRecord(key, now);
  const desired = desiredAt(timelineOf(ctx.log, snap, now), now);
  const s = rec.state;
  return {
    ...(desired !== undefined ? { desired } : {}),
    actual: s.actual,
    ...(s.lastWritten !== undefined ? { lastWritten: s.lastWritten } : {}),
    ...(s.override !== undefined && overrideActive(s.override.status, now)
      ? { override: s.override }
      : {}),
    ...(rec.nextTransitionAt !== undefined ? { nextTransitionAt: rec.nextTransitionAt } : {}),
    ...(s.needsReauth !== undefined ? { needsReauth: s.needsReauth } : {}),
    ...(s.pending !== undefined ? { pending: s.pending } : {}),
    calendars: snap.user.sources.map((src) => ({
      id: src.id,
      kind: src.kind,
      address: shownAddress(src),
      ...(src.name !== undefined ? { name: src.name } : {}),
    })),
  };
}
