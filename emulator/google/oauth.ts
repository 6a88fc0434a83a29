import { randomBytes } from "node:crypto";
import type { Clock } from "#lib/core/clock";
import type { GoogleUser } from "./calendar-model";
import { OAuthTokenError } from "./errors";

/**
 * Google's OAuth 2.0 for web server applications: the authorization step (consent, then a
 * redirect with `code` and `state`), the token endpoint (authorization_code and refresh_token
 * grants) and revocation. Access tokens last 3599 s. A refresh token is issued with
 * `access_type=offline` on an account's first consent to the client, and again whenever
 * `prompt=consent` asks for consent anew; refresh tokens are not rotated; at most 100 live
 * refresh tokens per account and client (the oldest is revoked past that).
 */

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

export const ACCESS_TOKEN_LIFETIME_S = 3599;
const CODE_LIFETIME_MS = 10 * 60_000;
const MAX_REFRESH_TOKENS = 100;

/** Scopes the emulator knows; anything else is `invalid_scope`. */
export const KNOWN_SCOPES = new Set([
  "https://www.googleapis.com/auth/calendar",
  "https://www.googleapis.com/auth/calendar.readonly",
  "https://www.googleapis.com/auth/calendar.events",
  "https://www.googleapis.com/auth/calendar.events.readonly",
  "https://www.googleapis.com/auth/userinfo.email",
  "https://www.googleapis.com/auth/userinfo.profile",
  "openid",
  "email",
  "profile",
]);

/** Scopes that let a token read events and watch them. */
export const EVENT_READ_SCOPES = [
  "https://www.googleapis.com/auth/calendar",
  "https://www.googleapis.com/auth/calendar.readonly",
  "https://www.googleapis.com/auth/calendar.events",
  "https://www.googleapis.com/auth/calendar.events.readonly",
];

export interface AuthRequest {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  state?: string;
  offline: boolean;
  promptConsent: boolean;
}

interface CodeRecord {
  req: AuthRequest;
  userId: string;
  issuedAt: number;
  used: boolean;
}

interface Grant {
  clientId: string;
  userId: string;
  scopes: string[];
  refreshToken?: string;
  createdAt: number;
  revoked: boolean;
}

export interface AccessTokenRecord {
  token: string;
  clientId: string;
  userId: string;
  scopes: string[];
  expiresAt: number;
  grant: Grant;
}

export interface TokenAnswer {
  access_token: string;
  expires_in: number;
  refresh_token?: string;
  scope: string;
  token_type: "Bearer";
}

const random = (n: number) => randomBytes(n).toString("base64url");

export class GoogleOAuth {
  readonly clients = new Map<string, OAuthClient>();
  private readonly codes = new Map<string, CodeRecord>();
  private readonly grants: Grant[] = [];
  private readonly refreshTokens = new Map<string, Grant>();
  private readonly accessTokens = new Map<string, AccessTokenRecord>();

  constructor(private readonly clock: () => Clock) {}

  addClient(c: OAuthClient): void {
    this.clients.set(c.clientId, { ...c, redirectUris: [...c.redirectUris] });
  }

  /** Issues a code for an approved request. */
  issueCode(req: AuthRequest, user: GoogleUser): string {
    const code = `4/0${random(32)}`;
    this.codes.set(code, { req, userId: user.id, issuedAt: this.clock().now(), used: false });
    return code;
  }

  /** POST /token. `params` are the form's; `basic` the HTTP Basic client credentials, if any. */
  token(params: URLSearchParams, basic?: { id: string; secret: string }): TokenAnswer {
    const clientId = basic?.id ?? params.get("client_id") ?? "";
    const secret = basic?.secret ?? params.get("client_secret") ?? "";
    const client = this.clients.get(clientId);
    if (!client)
      throw new OAuthTokenError(401, "invalid_client", "The OAuth client was not found.");
    if (secret !== client.clientSecret)
      throw new OAuthTokenError(401, "invalid_client", "Unauthorized");
    const grantType = params.get("grant_type");
    if (grantType === "authorization_code") return this.exchangeCode(client, params);
    if (grantType === "refresh_token") return this.refresh(client, params);
    if (grantType === null) {
      throw new OAuthTokenError(400, "unsupported_grant_type", "Invalid grant_type: ");
    }
    throw new OAuthTokenError(400, "unsupported_grant_type", `Invalid grant_type: ${grantType}`);
  }

  private exchangeCode(client: OAuthClient, params: URLSearchParams): TokenAnswer {
    const code = params.get("code");
    if (!code)
      throw new OAuthTokenError(400, "invalid_request", "Missing required parameter: code");
    const rec = this.codes.get(code);
    const now = this.clock().now();
    if (!rec) throw new OAuthTokenError(400, "invalid_grant", "Malformed auth code.");
    if (
      rec.used ||
      rec.req.clientId !== client.clientId ||
      now - rec.issuedAt >= CODE_LIFETIME_MS
    ) {
      throw new OAuthTokenError(400, "invalid_grant", "Bad Request");
    }
    if (params.get("redirect_uri") !== rec.req.redirectUri) {
      throw new OAuthTokenError(400, "redirect_uri_mismatch", "Bad Request");
    }
    rec.used = true;
    const first = !this.grants.some(
      (g) => g.clientId === client.clientId && g.userId === rec.userId && g.refreshToken,
    );
    const grant: Grant = {
      clientId: client.clientId,
      userId: rec.userId,
      scopes: rec.req.scopes,
      createdAt: now,
      revoked: false,
    };
    if (rec.req.offline && (first || rec.req.promptConsent)) {
      grant.refreshToken = `1//0${random(48)}`;
      this.refreshTokens.set(grant.refreshToken, grant);
      this.capRefreshTokens(client.clientId, rec.userId);
    }
    this.grants.push(grant);
    const answer = this.issueAccess(grant);
    return grant.refreshToken ? { ...answer, refresh_token: grant.refreshToken } : answer;
  }

  private refresh(client: OAuthClient, params: URLSearchParams): TokenAnswer {
    const token = params.get("refresh_token");
    if (!token) {
      throw new OAuthTokenError(
        400,
        "invalid_request",
        "Missing required parameter: refresh_token",
      );
    }
    const grant = this.refreshTokens.get(token);
    if (!grant || grant.revoked || grant.clientId !== client.clientId) {
      throw new OAuthTokenError(400, "invalid_grant", "Token has been expired or revoked.");
    }
    return this.issueAccess(grant);
  }

  private issueAccess(grant: Grant): TokenAnswer {
    const token = `ya29.a0${random(40)}`;
    this.accessTokens.set(token, {
      token,
      clientId: grant.clientId,
      userId: grant.userId,
      scopes: grant.scopes,
      expiresAt: this.clock().now() + ACCESS_TOKEN_LIFETIME_S * 1000,
      grant,
    });
    return {
      access_token: token,
      expires_in: ACCESS_TOKEN_LIFETIME_S,
      scope: grant.scopes.join(" "),
      token_type: "Bearer",
    };
  }

  private capRefreshTokens(clientId: string, userId: string): void {
    const live = this.grants
      .filter((g) => g.clientId === clientId && g.userId === userId && g.refreshToken && !g.revoked)
      .sort((a, b) => a.createdAt - b.createdAt);
    // The grant being created is not in `grants` yet: keep room for it.
    for (const g of live.slice(0, Math.max(0, live.length - (MAX_REFRESH_TOKENS - 1)))) {
      g.revoked = true;
    }
  }

  /** A live access token's record; undefined when unknown, expired or revoked. */
  accessToken(token: string): AccessTokenRecord | undefined {
    const rec = this.accessTokens.get(token);
    if (!rec || rec.grant.revoked || rec.expiresAt <= this.clock().now()) return undefined;
    return rec;
  }

  /** POST /revoke: an access or refresh token; revoking either ends the whole grant. */
  revoke(token: string): boolean {
    const grant = this.refreshTokens.get(token) ?? this.accessTokens.get(token)?.grant;
    if (!grant || grant.revoked) return false;
    grant.revoked = true;
    return true;
  }

  /** Fault: the user's grants die (as when they revoke access): refresh answers invalid_grant. */
  invalidateGrants(userId: string): number {
    let n = 0;
    for (const g of this.grants) {
      if (g.userId === userId && !g.revoked) {
        g.revoked = true;
        n += 1;
      }
    }
    return n;
  }

  /** Fault: the access tokens (of one user, or all) expire now; refresh tokens keep working. */
  expireAccessTokens(userId?: string): number {
    let n = 0;
    const now = this.clock().now();
    for (const rec of this.accessTokens.values()) {
      if ((userId === undefined || rec.userId === userId) && rec.expiresAt > now) {
        rec.expiresAt = now;
        n += 1;
      }
    }
    return n;
  }
}
