import { randomBytes } from "node:crypto";
import { checkManifest } from "./manifest-check";
import { authenticate, type CallContext, fail, type MethodResult, refusedOwner } from "./methods";
import { stringArg } from "./request";
import type { WorkspaceApp } from "./workspace";

/**
 * `apps.manifest.create` and `apps.manifest.export`: an extension beyond the seed spec (which has
 * only `apps.manifest.update`), following the platform's public reference for both methods
 * (arguments, the success answers' shape, their error codes). `apps.manifest.create` checks the
 * manifest as `apps.manifest.update` does (`checkManifest`), so both accept the same manifests.
 */

/** App ids as the platform writes them: `A` and upper-case letters or digits. */
const APP_ID = /^A[0-9A-Z]{2,}$/;
const hex = (bytes: number) => randomBytes(bytes).toString("hex");

/** A new app's id, unique in this workspace: `A` and 10 characters, like the platform's. */
function newAppId(ctx: CallContext): string {
  for (;;) {
    const id = `A${randomBytes(8).toString("hex").toUpperCase().slice(0, 10)}`;
    if (!ctx.model.apps.has(id)) return id;
  }
}

/** The scopes a manifest asks for, comma-separated, as the install link carries them. */
function scopesOf(manifest: Record<string, unknown>, kind: "bot" | "user"): string {
  const scopes = (manifest.oauth_config as { scopes?: Record<string, unknown> } | undefined)
    ?.scopes?.[kind];
  return Array.isArray(scopes) ? scopes.map(String).join(",") : "";
}

/**
 * `apps.manifest.create`: a config token (no scope); `manifest` required. The caller becomes
 * the app's one collaborator. Answers the app id, its credentials (the only time the secrets
 * are shown) and the link that installs it.
 */
export async function appsManifestCreate(ctx: CallContext): Promise<MethodResult> {
  const auth = authenticate(ctx, ["config"], undefined);
  if (!auth.ok) return auth.result;
  const caller = auth.token.user;
  const raw = ctx.args.manifest;
  if (Array.isArray(raw)) return { ...fail("invalid_array_arg"), caller };
  if (raw === undefined || raw === null || raw === "")
    return { ...fail("invalid_arguments"), caller };
  const checked = await checkManifest(raw, ctx.oauthCallbackUrl);
  if (!checked.ok) return { ...fail(checked.code, checked.extra), caller };
  const id = newAppId(ctx);
  const app: WorkspaceApp = {
    id,
    signing_secret: hex(16),
    verification_token: randomBytes(18).toString("base64url").slice(0, 24),
    // The platform's client ids are two numbers: the team's and the app's.
    client_id: `${BigInt(`0x${hex(5)}`)}.${BigInt(`0x${hex(5)}`)}`,
    client_secret: hex(16),
    manifest: structuredClone(checked.manifest),
    collaborators: [caller],
  };
  ctx.model.apps.set(id, { app, manifest: structuredClone(checked.manifest) });
  ctx.model.createdApps.add(id);
  const authorize = new URL("/oauth/v2/authorize", ctx.origin);
  authorize.searchParams.set("client_id", app.client_id);
  authorize.searchParams.set("scope", scopesOf(checked.manifest, "bot"));
  const userScope = scopesOf(checked.manifest, "user");
  if (userScope !== "") authorize.searchParams.set("user_scope", userScope);
  return {
    status: 200,
    body: {
      ok: true,
      app_id: id,
      credentials: {
        client_id: app.client_id,
        client_secret: app.client_secret,
        verification_token: app.verification_token,
        signing_secret: app.signing_secret,
      },
      oauth_authorize_url: authorize.href,
      team_id: ctx.model.team.id,
      team_domain: ctx.model.team.name ?? ctx.model.team.id.toLowerCase(),
    },
    caller,
  };
}

/**
 * `apps.manifest.export`: a config token; `app_id` required. A malformed id is
 * `invalid_app_id`, an unknown one `app_not_found`; the caller must own the app as for
 * `apps.manifest.update`. Answers the app's current manifest as a JSON object.
 */
export function appsManifestExport(ctx: CallContext): MethodResult {
  const auth = authenticate(ctx, ["config"], undefined);
  if (!auth.ok) return auth.result;
  const caller = auth.token.user;
  const appId = stringArg(ctx.args, "app_id");
  if (!appId.ok) return { ...fail(appId.code), caller };
  const id = appId.value ?? "";
  if (id === "") return { ...fail("invalid_arguments"), caller };
  if (!APP_ID.test(id)) return { ...fail("invalid_app_id"), caller };
  const state = ctx.model.apps.get(id);
  if (!state) return { ...fail("app_not_found"), caller };
  const refused = refusedOwner(auth.token, state);
  if (refused) return { ...fail(refused), caller };
  return { status: 200, body: { ok: true, manifest: structuredClone(state.manifest) }, caller };
}

export const MANIFEST_METHODS: Record<
  string,
  (ctx: CallContext) => MethodResult | Promise<MethodResult>
> = {
  "apps.manifest.create": appsManifestCreate,
  "apps.manifest.export": appsManifestExport,
};
