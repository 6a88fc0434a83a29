import * as z from "zod";
import type { Clock } from "#lib/core/clock";
import type { Log } from "#lib/core/ports";
import { ServiceError, type ServiceErrorCode } from "./errors";
import { ServiceTransport } from "./transport";

/**
 * The product's client of the service's OAuth v2 (an extension beyond the seed spec, as the
 * real platform documents it): the code exchange and the refresh of `oauth.v2.access`, and
 * `auth.test`, `auth.revoke`, `users.info`. Every failure is an OAuthError.
 */

/** The codes these methods answer, beyond the generic ones of spec 7.1. */
export type OAuthErrorCode =
  | "invalid_code"
  | "bad_redirect_uri"
  | "invalid_client_id"
  | "bad_client_secret"
  | "invalid_grant_type"
  | "invalid_refresh_token"
  | "token_revoked"
  | "token_expired"
  | "invalid_auth"
  | "not_authed"
  | "account_inactive"
  | "missing_scope"
  | "user_not_found";

/** What the caller should do about a failure. */
export type OAuthFailureKind =
  /** The user's token (or refresh token) is dead: flag the user and ask them to reconnect. */
  | "reauthorize"
  /** The code was refused (used, expired, not ours): the person starts the install again. */
  | "restart_install"
  /** The app's own settings are wrong (client id, secret, redirect URL): an operator must act. */
  | "misconfigured"
  /** Momentary: the service was unreachable, slow, rate-limiting or failing. Try again later. */
  | "retry"
  | "other";

const KIND_BY_CODE: Partial<Record<string, OAuthFailureKind>> = {
  token_revoked: "reauthorize",
  token_expired: "reauthorize",
  invalid_auth: "reauthorize",
  not_authed: "reauthorize",
  account_inactive: "reauthorize",
  invalid_refresh_token: "reauthorize",
  missing_scope: "reauthorize",
  invalid_code: "restart_install",
  invalid_client_id: "misconfigured",
  bad_client_secret: "misconfigured",
  bad_redirect_uri: "misconfigured",
  invalid_grant_type: "misconfigured",
};

/** A failed OAuth call; `code` is the service's `error` (or the client's own, as ServiceError). */
export class OAuthError extends ServiceError {
  override readonly code: OAuthErrorCode | ServiceErrorCode;
  readonly method: string;
  readonly kind: OAuthFailureKind;

  constructor(method: string, from: ServiceError) {
    super(`${method}: ${from.code}`, {
      code: from.code,
      retryable: from.retryable,
      local: from.local,
      cause: from,
      ...(from.retryAfterS !== undefined ? { retryAfterS: from.retryAfterS } : {}),
      ...(from.httpStatus !== undefined ? { httpStatus: from.httpStatus } : {}),
    });
    this.name = "OAuthError";
    this.code = from.code;
    this.method = method;
    this.kind = KIND_BY_CODE[from.code] ?? (from.retryable ? "retry" : "other");
  }
}

export interface OAuthClientOptions {
  /** Base of the method URLs, e.g. `http://127.0.0.1:4010/api` (a trailing slash is fine). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  clock: Clock;
  fetch?: typeof fetch;
  timeoutMs?: number;
  log?: Log;
}

/** An access token and, with token rotation on, what renews it. */
export interface OAuthTokens {
  accessToken: string;
  scopes: string[];
  /** Present when the app has token rotation on. */
  refreshToken?: string;
  /** Epoch ms at which the access token stops working (rotation on); absent: it never expires. */
  expiresAt?: number;
}

/** The outcome of a code exchange: the installing person's user token. */
export interface OAuthGrant extends OAuthTokens {
  appId: string;
  team: { id: string; name: string };
  user: string;
  /** The app's bot token, when bot scopes were asked for (the Home tab, direct messages). */
  bot?: { accessToken: string; scopes: string[]; botUser?: string };
}

/** The outcome of a refresh: a new access token and a new refresh token (the old one is spent). */
export interface RefreshedTokens extends OAuthTokens {
  appId: string;
  team: { id: string; name: string };
  refreshToken: string;
  expiresAt: number;
}

/** `auth.test`: whose token this is. */
export interface TokenIdentity {
  team: string;
  teamId: string;
  user: string;
  userId: string;
  url: string;
  /** Epoch ms, for an expiring (rotated) token. */
  expiresAt?: number;
}

/** The part of `users.info` the product uses. */
export interface UserInfo {
  id: string;
  teamId: string;
  name: string;
  /** IANA zone, e.g. `Europe/Berlin`. */
  tz: string;
  tzLabel?: string;
  /** Seconds east of UTC, now. */
  tzOffset?: number;
  deleted: boolean;
  isBot: boolean;
}

const scopeList = z
  .string()
  .default("")
  .transform((s) => s.split(",").filter((x) => x !== ""));
const team = z.looseObject({ id: z.string().min(1), name: z.string().default("") });
const expiresIn = z.number().int().positive().optional();

const accessSchema = z.looseObject({
  ok: z.literal(true),
  app_id: z.string().min(1),
  // The bot token, at the top level, when bot scopes were asked for.
  access_token: z.string().min(1).optional(),
  token_type: z.string().optional(),
  scope: scopeList,
  bot_user_id: z.string().min(1).optional(),
  authed_user: z.looseObject({
    id: z.string().min(1),
    scope: scopeList,
    access_token: z.string().min(1),
    token_type: z.literal("user"),
    refresh_token: z.string().min(1).optional(),
    expires_in: expiresIn,
  }),
  team,
});

const refreshSchema = z.looseObject({
  ok: z.literal(true),
  app_id: z.string().min(1),
  scope: scopeList,
  access_token: z.string().min(1),
  refresh_token: z.string().min(1),
  expires_in: z.number().int().positive(),
  team,
});

const authTestSchema = z.looseObject({
  ok: z.literal(true),
  url: z.string().default(""),
  team: z.string().default(""),
  user: z.string().default(""),
  team_id: z.string().min(1),
  user_id: z.string().min(1),
  expires_in: expiresIn,
});

const revokeSchema = z.looseObject({ ok: z.literal(true), revoked: z.boolean() });

const userInfoSchema = z.looseObject({
  ok: z.literal(true),
  user: z.looseObject({
    id: z.string().min(1),
    team_id: z.string().default(""),
    name: z.string().default(""),
    deleted: z.boolean().default(false),
    tz: z.string().min(1).default("UTC"),
    tz_label: z.string().optional(),
    tz_offset: z.number().int().optional(),
    is_bot: z.boolean().default(false),
  }),
});

export class OAuthClient {
  private readonly transport: ServiceTransport;
  private readonly clock: Clock;
  private readonly basic: string;

  constructor(opts: OAuthClientOptions) {
    this.transport = new ServiceTransport(opts);
    this.clock = opts.clock;
    this.basic = `Basic ${Buffer.from(`${opts.clientId}:${opts.clientSecret}`, "utf8").toString("base64")}`;
  }

  /** Exchanges the code of the callback for the person's token. */
  async exchangeCode(req: { code: string; redirectUri: string }): Promise<OAuthGrant> {
    const at = this.clock.now();
    const body = await this.access({ code: req.code, redirect_uri: req.redirectUri });
    const a = this.expect(body, accessSchema, "oauth.v2.access");
    return {
      appId: a.app_id,
      team: { id: a.team.id, name: a.team.name },
      user: a.authed_user.id,
      scopes: a.authed_user.scope,
      accessToken: a.authed_user.access_token,
      ...(a.authed_user.refresh_token !== undefined
        ? { refreshToken: a.authed_user.refresh_token }
        : {}),
      ...expiry(at, a.authed_user.expires_in),
      ...(a.token_type === "bot" && a.access_token !== undefined
        ? {
            bot: {
              accessToken: a.access_token,
              scopes: a.scope,
              ...(a.bot_user_id !== undefined ? { botUser: a.bot_user_id } : {}),
            },
          }
        : {}),
    };
  }

  /** Renews a rotating token; the refresh token given is spent, keep the new one. */
  async refresh(refreshToken: string): Promise<RefreshedTokens> {
    const at = this.clock.now();
    const body = await this.access({ grant_type: "refresh_token", refresh_token: refreshToken });
    const r = this.expect(body, refreshSchema, "oauth.v2.access");
    return {
      appId: r.app_id,
      team: { id: r.team.id, name: r.team.name },
      scopes: r.scope,
      accessToken: r.access_token,
      refreshToken: r.refresh_token,
      expiresAt: at + r.expires_in * 1000,
    };
  }

  async authTest(token: string): Promise<TokenIdentity> {
    const at = this.clock.now();
    const body = await this.call("auth.test", token, {});
    const t = this.expect(body, authTestSchema, "auth.test");
    return {
      team: t.team,
      teamId: t.team_id,
      user: t.user,
      userId: t.user_id,
      url: t.url,
      ...expiry(at, t.expires_in),
    };
  }

  /** Revokes the token (and what the same consent issued); `test` only checks that it would. */
  async revoke(token: string, opts: { test?: boolean } = {}): Promise<{ revoked: boolean }> {
    const body = await this.call("auth.revoke", token, opts.test ? { test: "true" } : {});
    return { revoked: this.expect(body, revokeSchema, "auth.revoke").revoked };
  }

  /** A person's record; the product reads `tz` from it. Needs `users:read`. */
  async userInfo(token: string, user: string): Promise<UserInfo> {
    const body = await this.call("users.info", token, { user });
    const u = this.expect(body, userInfoSchema, "users.info").user;
    return {
      id: u.id,
      teamId: u.team_id,
      name: u.name,
      tz: u.tz,
      ...(u.tz_label !== undefined ? { tzLabel: u.tz_label } : {}),
      ...(u.tz_offset !== undefined ? { tzOffset: u.tz_offset } : {}),
      deleted: u.deleted,
      isBot: u.is_bot,
    };
  }

  /** `oauth.v2.access` with the client's credentials by HTTP Basic, never in the body. */
  private access(args: Record<string, string>): Promise<unknown> {
    const headers = {
      authorization: this.basic,
      "content-type": "application/x-www-form-urlencoded",
    };
    return this.guard("oauth.v2.access", () =>
      this.transport.send("oauth.v2.access", headers, new URLSearchParams(args).toString()),
    );
  }

  private call(method: string, token: string, params: Record<string, string>): Promise<unknown> {
    return this.guard(method, () =>
      this.transport.post(method, token, params, { encoding: "form" }),
    );
  }

  private async guard(method: string, send: () => Promise<unknown>): Promise<unknown> {
    try {
      return await send();
    } catch (error: unknown) {
      throw error instanceof ServiceError ? new OAuthError(method, error) : error;
    }
  }

  private expect<S extends z.ZodType>(body: unknown, schema: S, method: string): z.infer<S> {
    try {
      return this.transport.expect(body, schema, method);
    } catch (error: unknown) {
      throw error instanceof ServiceError ? new OAuthError(method, error) : error;
    }
  }
}

const expiry = (at: number, expiresInS: number | undefined): { expiresAt?: number } =>
  expiresInS === undefined ? {} : { expiresAt: at + expiresInS * 1000 };

/** The service's authorize URL the product's `/install` redirects to. */
export function authorizeUrl(req: {
  /** e.g. `https://svc.example/oauth/v2/authorize`. */
  endpoint: string;
  clientId: string;
  userScopes: readonly string[];
  botScopes?: readonly string[];
  redirectUri: string;
  state: string;
}): string {
  const url = new URL(req.endpoint);
  url.searchParams.set("client_id", req.clientId);
  url.searchParams.set("scope", (req.botScopes ?? []).join(","));
  url.searchParams.set("user_scope", req.userScopes.join(","));
  url.searchParams.set("redirect_uri", req.redirectUri);
  url.searchParams.set("state", req.state);
  return url.toString();
}
