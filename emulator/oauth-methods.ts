/**
 * Methods that come with the OAuth extension (beyond the spec, after the real platform's public
 * documentation): `auth.test` (who a token is), `auth.revoke`, and `users.info` (a person's time
 * zone). Authentication is the spec's section 5, shared with every other method.
 */
import { authenticate, type CallContext, fail, type MethodResult } from "./methods";
import type { WorkspaceToken } from "./workspace";

const ALL_TYPES = ["user", "bot", "workspace", "config"] as const;

/** A stand-in for the workspace's web address, which the emulator does not have. */
function teamUrl(team: { id: string; name?: string | undefined }): string {
  const slug = (team.name ?? team.id).toLowerCase().replace(/[^a-z0-9]+/g, "-");
  return `https://${slug.replace(/^-+|-+$/g, "") || team.id.toLowerCase()}.svc.example/`;
}

export function authTest(ctx: CallContext): MethodResult {
  const auth = authenticate(ctx, ALL_TYPES, undefined);
  if (!auth.ok) return auth.result;
  const { token } = auth;
  const { team } = ctx.model;
  const expiresIn =
    token.expires_at === undefined
      ? {}
      : { expires_in: Math.max(0, token.expires_at - Math.floor(ctx.now / 1000)) };
  return {
    status: 200,
    body: {
      ok: true,
      url: teamUrl(team),
      team: team.name ?? team.id,
      user: ctx.model.users.get(token.user)?.name ?? token.user,
      team_id: team.id,
      user_id: token.user,
      is_enterprise_install: false,
      ...expiresIn,
    },
    caller: token.user,
  };
}

/** `auth.revoke`; `test=1` (or `true`) checks the token without revoking it. */
export function authRevoke(
  ctx: CallContext,
  revoke: (token: WorkspaceToken) => void,
): MethodResult {
  const auth = authenticate(ctx, ALL_TYPES, undefined);
  if (!auth.ok) return auth.result;
  const test = ctx.args.test;
  if (Array.isArray(test)) return { ...fail("invalid_array_arg"), caller: auth.token.user };
  const dryRun = test === true || test === 1 || test === "1" || test === "true";
  if (!dryRun) revoke(auth.token);
  return { status: 200, body: { ok: true, revoked: !dryRun }, caller: auth.token.user };
}

/** The zone's long name and UTC offset (seconds) at `at`, as the platform reports them. */
export function zoneAt(tz: string, at: number): { tz: string; label: string; offset: number } {
  try {
    const part = (style: "long" | "longOffset") =>
      new Intl.DateTimeFormat("en-US", { timeZone: tz, timeZoneName: style })
        .formatToParts(at)
        .find((p) => p.type === "timeZoneName")?.value ?? "";
    const m = /GMT([+-])(\d{2}):(\d{2})/.exec(part("longOffset"));
    const offset = m ? (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60) : 0;
    return { tz, label: part("long") || tz, offset };
  } catch {
    // A zone the runtime does not know reads as UTC rather than failing the call.
    return { tz: "UTC", label: "Coordinated Universal Time", offset: 0 };
  }
}

/**
 * `users.info` (scope `users:read`). The profile's `email` shows only with `users:read.email`,
 * as on the platform. An unknown or missing `user` is `user_not_found`.
 */
export function usersInfo(ctx: CallContext): MethodResult {
  const auth = authenticate(ctx, ["user", "bot", "workspace"], "users:read");
  if (!auth.ok) return auth.result;
  const caller = auth.token.user;
  const arg = ctx.args.user;
  if (Array.isArray(arg)) return { ...fail("invalid_array_arg"), caller };
  const id = typeof arg === "string" ? arg : undefined;
  const user = id === undefined ? undefined : ctx.model.users.get(id);
  const stored = id === undefined ? undefined : ctx.model.profiles.get(id);
  if (!user || !stored) return { ...fail("user_not_found"), caller };
  const profile: Record<string, unknown> = { ...structuredClone(stored), team: ctx.model.team.id };
  if (!auth.token.scopes.includes("users:read.email")) delete profile.email;
  const zone = zoneAt(user.tz ?? "UTC", ctx.now);
  const role = user.role;
  return {
    status: 200,
    body: {
      ok: true,
      user: {
        id: user.id,
        team_id: ctx.model.team.id,
        name: user.name,
        deleted: false,
        real_name: stored.real_name,
        tz: zone.tz,
        tz_label: zone.label,
        tz_offset: zone.offset,
        is_admin: role === "admin" || role === "owner" || role === "primary_owner",
        is_owner: role === "owner" || role === "primary_owner",
        is_primary_owner: role === "primary_owner",
        is_restricted: role === "guest",
        is_ultra_restricted: false,
        is_bot: user.is_bot === true,
        is_app_user: false,
        profile,
      },
    },
    caller,
    target: user.id,
  };
}
