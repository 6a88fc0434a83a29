/**
 * The emulator's OAuth v2 (an extension beyond the spec, after the real platform's public
 * documentation): the consent page at `/oauth/v2/authorize`, `oauth.v2.access` (authorization
 * codes and, with token rotation, refresh tokens), the methods that come with it, and the
 * uninstall control endpoint. Issued tokens join the workspace's tokens, so every method accepts
 * them like any other token of the file; `oauth-grants.ts` keeps the state behind them.
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "#lib/core/clock";
import type { EventDispatcher } from "./events";
import { type CallContext, fail, type MethodResult } from "./methods";
import type { AppState, EmulatorModel } from "./model";
import { botTokenFields, issueBotToken } from "./oauth-bot";
import { OAuthGrants, ROTATING_TOKEN_LIFETIME_S } from "./oauth-grants";
import { authRevoke, authTest, usersInfo } from "./oauth-methods";
import {
  AUTHORIZE_PATH,
  consentPage,
  errorPage,
  readSmallBody,
  redirect,
  sendHtml,
  sendJson,
} from "./oauth-page";
import { stringArg } from "./request";

export { CODE_LIFETIME_MS, ROTATING_TOKEN_LIFETIME_S } from "./oauth-grants";

/** Control endpoint: uninstall an app, as a workspace admin removing it would. */
export const UNINSTALL_PATH = "/_emulator/uninstall";

/** A method's context with the raw `Authorization` header, for HTTP Basic client credentials. */
export type OAuthCallContext = CallContext & { authorization?: string | undefined };
export type OAuthMethod = (ctx: OAuthCallContext) => MethodResult;

type Authorization =
  | {
      ok: true;
      state: AppState;
      redirectUri: string;
      sent: boolean;
      scopes: string[];
      botScopes: string[];
    }
  | { ok: false; code: string; message: string };

const splitScopes = (s: string | null | undefined): string[] =>
  (s ?? "").split(/[\s,]+/).filter((x) => x !== "");

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

type Credentials =
  | { ok: true; clientId: string | undefined; clientSecret: string | undefined }
  | { ok: false; code: string };

/** HTTP Basic (what the platform recommends) wins over `client_id`/`client_secret` arguments. */
function clientCredentials(ctx: OAuthCallContext): Credentials {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(ctx.authorization ?? "")?.[1];
  if (basic !== undefined) {
    const decoded = Buffer.from(basic, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) return { ok: false, code: "invalid_client_id" };
    return { ok: true, clientId: decoded.slice(0, colon), clientSecret: decoded.slice(colon + 1) };
  }
  const id = stringArg(ctx.args, "client_id");
  if (!id.ok) return id;
  const secret = stringArg(ctx.args, "client_secret");
  if (!secret.ok) return secret;
  return { ok: true, clientId: id.value, clientSecret: secret.value };
}

const settingsOf = (state: AppState) =>
  state.manifest.settings as { token_rotation_enabled?: unknown } | undefined;

const oauthConfigOf = (state: AppState) =>
  state.manifest.oauth_config as
    | { redirect_urls?: unknown; scopes?: { user?: unknown; bot?: unknown } }
    | undefined;

const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];

export interface OAuthOptions {
  model: EmulatorModel;
  clock: Clock;
  events: EventDispatcher;
  /** How long the consent form's body may take to arrive. */
  bodyTimeoutMs: number;
}

export class OAuthEmulator {
  /** The consents, tokens and codes behind the pages (read and restored by snapshots). */
  readonly grants: OAuthGrants;
  readonly methods: Record<string, OAuthMethod> = {
    "oauth.v2.access": (ctx) => this.access(ctx),
    "auth.test": authTest,
    "auth.revoke": (ctx) => authRevoke(ctx, (token) => this.grants.revoke(token)),
    "users.info": usersInfo,
  };

  constructor(private readonly opts: OAuthOptions) {
    this.grants = new OAuthGrants(opts);
  }

  /** True for the paths this extension serves outside `/api/`. */
  handlesPath(path: string): boolean {
    return path === AUTHORIZE_PATH || path === UNINSTALL_PATH;
  }

  async handleHttp(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (path === UNINSTALL_PATH) return this.handleUninstall(req, res);
    let params: URLSearchParams;
    if (req.method === "GET") {
      params = new URL(req.url ?? "/", "http://emulator.invalid").searchParams;
    } else if (req.method === "POST") {
      const type = (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase();
      const body = await readSmallBody(req, this.opts.bodyTimeoutMs);
      if (res.destroyed) return;
      if (!body.ok) return sendHtml(res, 400, errorPage("invalid_form_data", body.reason));
      if (type !== "application/x-www-form-urlencoded") {
        const message = "the consent form is posted as application/x-www-form-urlencoded";
        return sendHtml(res, 400, errorPage("invalid_post_type", message));
      }
      params = new URLSearchParams(body.text);
    } else {
      const html = errorPage("method_not_allowed", "use GET or POST");
      return sendHtml(res, 405, html, { allow: "GET, POST" });
    }
    const request = this.authorization(params);
    if (!request.ok) return sendHtml(res, 400, errorPage(request.code, request.message));
    const state = params.get("state");
    const decision = req.method === "POST" ? params.get("decision") : null;
    if (decision === "cancel") {
      return redirect(res, withParams(request.redirectUri, { error: "access_denied", state }));
    }
    const as = params.get("as");
    if (as === null || (req.method === "POST" && decision !== "allow")) {
      if (req.method === "POST") {
        const message = "the form needs decision=allow or decision=cancel, and as=<user id>";
        return sendHtml(res, 400, errorPage("invalid_arguments", message));
      }
      return sendHtml(res, 200, this.consent(request, params));
    }
    const user = this.opts.model.users.get(as);
    if (!user || user.is_bot === true) {
      return sendHtml(res, 400, errorPage("user_not_found", `no person ${as} in this workspace`));
    }
    const botScopes = request.botScopes.length > 0 ? { botScopes: request.botScopes } : {};
    const code = this.grants.addCode({
      grant: { appId: request.state.app.id, user: user.id, scopes: request.scopes, ...botScopes },
      redirectUri: request.redirectUri,
      sent: request.sent,
      issuedAt: this.opts.clock.now(),
    });
    redirect(res, withParams(request.redirectUri, { code, state }));
  }

  /** Checks an authorization request: the client, where to send the answer, and the scopes. */
  private authorization(params: URLSearchParams): Authorization {
    const clientId = params.get("client_id");
    const state = clientId === null ? undefined : this.appByClientId(clientId);
    if (!state) {
      return { ok: false, code: "invalid_client_id", message: `unknown client_id ${clientId}` };
    }
    const config = oauthConfigOf(state);
    const configured = strings(config?.redirect_urls);
    const given = params.get("redirect_uri");
    const redirectUri = given ?? configured[0];
    if (redirectUri === undefined) {
      const message = "the app's manifest has no oauth_config.redirect_urls";
      return { ok: false, code: "bad_redirect_uri", message };
    }
    if (!configured.includes(redirectUri) || !URL.canParse(redirectUri)) {
      const message = `redirect_uri did not match any configured URIs. Passed URI: ${redirectUri}`;
      return { ok: false, code: "bad_redirect_uri", message };
    }
    const scopes = splitScopes(params.get("user_scope"));
    const declared = new Set(strings(config?.scopes?.user));
    const declaredBot = new Set(strings(config?.scopes?.bot));
    // A manifest that declares no bot scopes (every app before the bot token extension) gets no
    // bot token: its `scope` is ignored, as it always was, so older installs keep working.
    const botScopes = declaredBot.size === 0 ? [] : splitScopes(params.get("scope"));
    const undeclared = [
      ...scopes.filter((s) => !declared.has(s)),
      ...botScopes.filter((s) => !declaredBot.has(s)),
    ];
    if (scopes.length === 0 && botScopes.length === 0) {
      const message = "neither user_scope nor scope names a scope the app's manifest declares";
      return { ok: false, code: "invalid_scope", message };
    }
    if (undeclared.length > 0) {
      const message = `the request asks for ${undeclared.join(", ")}, not in the manifest's oauth_config.scopes`;
      return { ok: false, code: "invalid_scope", message };
    }
    return { ok: true, state, redirectUri, sent: given !== null, scopes, botScopes };
  }

  private consent(request: Authorization & { ok: true }, params: URLSearchParams): string {
    const { model } = this.opts;
    const info = request.state.manifest.display_information as { name?: unknown } | undefined;
    const hidden: Record<string, string> = {};
    for (const key of ["client_id", "scope", "user_scope", "redirect_uri", "state"]) {
      const value = params.get(key);
      if (value !== null) hidden[key] = value;
    }
    return consentPage({
      appName: typeof info?.name === "string" ? info.name : request.state.app.id,
      teamName: model.team.name ?? model.team.id,
      scopes: [...request.scopes, ...request.botScopes],
      users: [...model.users.values()]
        .filter((u) => u.is_bot !== true)
        .map((u) => ({
          id: u.id,
          name: u.name,
          realName: model.profiles.get(u.id)?.real_name ?? u.name,
        })),
      hidden,
    });
  }

  private appByClientId(clientId: string): AppState | undefined {
    for (const state of this.opts.model.apps.values()) {
      if (state.app.client_id === clientId) return state;
    }
    return undefined;
  }

  private access(ctx: OAuthCallContext): MethodResult {
    const creds = clientCredentials(ctx);
    if (!creds.ok) return fail(creds.code);
    const state = creds.clientId === undefined ? undefined : this.appByClientId(creds.clientId);
    if (!state) return fail("invalid_client_id");
    if (!sameSecret(creds.clientSecret ?? "", state.app.client_secret))
      return fail("bad_client_secret");
    const grantType = stringArg(ctx.args, "grant_type");
    if (!grantType.ok) return fail(grantType.code);
    if (grantType.value === undefined || grantType.value === "authorization_code")
      return this.exchangeCode(ctx, state);
    if (grantType.value === "refresh_token") return this.refresh(ctx, state);
    return fail("invalid_grant_type");
  }

  private exchangeCode(ctx: OAuthCallContext, state: AppState): MethodResult {
    const codeArg = stringArg(ctx.args, "code");
    if (!codeArg.ok) return fail(codeArg.code);
    const redirectArg = stringArg(ctx.args, "redirect_uri");
    if (!redirectArg.ok) return fail(redirectArg.code);
    const code = codeArg.value ?? "";
    const redeemed = this.grants.redeemCode(code, state.app.id, redirectArg.value, ctx.now);
    if (!redeemed.ok) return fail(redeemed.error);
    const { grant } = redeemed;
    const rotating = settingsOf(state)?.token_rotation_enabled === true;
    const user = grant.user;
    const bot =
      grant.botScopes === undefined || grant.botScopes.length === 0
        ? undefined
        : issueBotToken({
            model: this.opts.model,
            grants: this.grants,
            appId: state.app.id,
            scopes: grant.botScopes,
            rotating,
            now: ctx.now,
          });
    const issued =
      grant.scopes.length === 0 ? undefined : this.grants.issue(grant, rotating, ctx.now);
    const authedUser =
      issued === undefined
        ? { id: user }
        : {
            id: user,
            scope: grant.scopes.join(","),
            access_token: issued.accessToken,
            token_type: "user",
            ...(issued.refreshToken === undefined
              ? {}
              : { refresh_token: issued.refreshToken, expires_in: ROTATING_TOKEN_LIFETIME_S }),
          };
    return {
      status: 200,
      body: {
        ok: true,
        app_id: state.app.id,
        ...(bot === undefined ? {} : botTokenFields(bot)),
        authed_user: authedUser,
        team: this.team(),
        enterprise: null,
        is_enterprise_install: false,
      },
      caller: user,
      target: user,
    };
  }

  /** The refresh grant: the refresh token is spent, a new access and refresh token come back. */
  private refresh(ctx: OAuthCallContext, state: AppState): MethodResult {
    const arg = stringArg(ctx.args, "refresh_token");
    if (!arg.ok) return fail(arg.code);
    const grant = this.grants.redeemRefreshToken(arg.value ?? "", state.app.id);
    if (!grant) return fail("invalid_refresh_token");
    const issued = this.grants.issue(grant, true, ctx.now);
    return {
      status: 200,
      body: {
        ok: true,
        app_id: state.app.id,
        scope: grant.scopes.join(","),
        token_type: grant.bot === true ? "bot" : "user",
        ...(grant.bot === true ? { bot_user_id: grant.user } : {}),
        access_token: issued.accessToken,
        refresh_token: issued.refreshToken,
        expires_in: ROTATING_TOKEN_LIFETIME_S,
        team: this.team(),
        enterprise: null,
        is_enterprise_install: false,
      },
      caller: grant.user,
      target: grant.user,
    };
  }

  private team(): { id: string; name: string } {
    const { team } = this.opts.model;
    return { id: team.id, name: team.name ?? team.id };
  }

  private async handleUninstall(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "POST") return sendJson(res, 405, { ok: false, error: "use POST" });
    const body = await readSmallBody(req, this.opts.bodyTimeoutMs);
    if (res.destroyed) return;
    if (!body.ok) return sendJson(res, 400, { ok: false, error: body.reason });
    let doc: unknown;
    try {
      doc = JSON.parse(body.text || "{}");
    } catch {
      return sendJson(res, 400, { ok: false, error: "body is not JSON" });
    }
    const appId =
      doc !== null && typeof doc === "object" ? (doc as { app?: unknown }).app : undefined;
    if (typeof appId !== "string")
      return sendJson(res, 400, { ok: false, error: "app (a string) is required" });
    if (!this.opts.model.apps.has(appId))
      return sendJson(res, 404, { ok: false, error: `no app ${appId}` });
    const revoked = this.grants.uninstall(appId);
    sendJson(res, 200, { ok: true, revoked: revoked.length });
  }
}

/** `uri` with `params` added to its query (a null value is left out). */
function withParams(uri: string, params: Record<string, string | null>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return url.toString();
}
