/**
 * The Microsoft identity platform's v2 endpoints, as the authorization code flow documents them:
 * `GET /{tenant}/oauth2/v2.0/authorize` (a consent page, then a redirect with `code` and
 * `state`) and `POST /{tenant}/oauth2/v2.0/token` (grants `authorization_code` and
 * `refresh_token`). A refresh token is issued only when `offline_access` was granted. Errors
 * carry the AADSTS codes of the public error reference.
 */
import { randomBytes } from "node:crypto";
import { type Answer, escapeHtml, htmlPage, identityError, redirect } from "./http";
import type { MicrosoftModel } from "./model";

export interface MsClient {
  clientId: string;
  clientSecret: string;
  /** Exact redirect URIs accepted; empty accepts any loopback http(s) address. */
  redirectUris: string[];
  name?: string;
}

interface Code {
  clientId: string;
  userId: string;
  redirectUri: string;
  scopes: string[];
  issuedAt: number;
  redeemed: boolean;
}
interface RefreshGrant {
  clientId: string;
  userId: string;
  scopes: string[];
  revoked: boolean;
}
export interface AccessGrant {
  clientId: string;
  userId: string;
  scopes: string[];
  expiresAt: number;
}

/** Authorization codes live 10 minutes; access tokens about an hour (3599 s). */
export const CODE_LIFETIME_MS = 600_000;
export const ACCESS_TOKEN_LIFETIME_S = 3599;

const token = (prefix: string) => `${prefix}${randomBytes(24).toString("base64url")}`;

/** A scope without Graph's resource prefix: `https://graph.microsoft.com/Calendars.Read` → `Calendars.Read`. */
const bareScope = (s: string) => s.replace(/^https:\/\/graph\.microsoft\.com\//i, "");
const scopesOf = (raw: string | undefined): string[] =>
  (raw ?? "").split(/\s+/).filter(Boolean).map(bareScope);

const isLoopback = (uri: string): boolean => {
  try {
    const u = new URL(uri);
    return ["127.0.0.1", "localhost", "[::1]"].includes(u.hostname);
  } catch {
    return false;
  }
};

export class IdentityPlatform {
  private readonly codes = new Map<string, Code>();
  private readonly refreshTokens = new Map<string, RefreshGrant>();
  private readonly accessTokens = new Map<string, AccessGrant>();
  private readonly clients: Map<string, MsClient>;

  constructor(
    private readonly model: MicrosoftModel,
    clients: readonly MsClient[],
    private readonly now: () => number,
  ) {
    this.clients = new Map(clients.map((c) => [c.clientId, c]));
  }

  /** The grant behind a bearer token, if it is known and not expired. */
  accessGrant(bearer: string): AccessGrant | "expired" | undefined {
    const grant = this.accessTokens.get(bearer);
    if (!grant) return undefined;
    return grant.expiresAt <= this.now() ? "expired" : grant;
  }

  /** The `invalid_grant` fault: every refresh token the user holds stops working. */
  revokeRefreshTokens(userId: string): number {
    let n = 0;
    for (const grant of this.refreshTokens.values()) {
      if (grant.userId === userId && !grant.revoked) {
        grant.revoked = true;
        n++;
      }
    }
    return n;
  }

  /** Issues a token pair directly, as if `userId` had consented (tests and the demo). */
  issueTokens(clientId: string, userId: string, scopes: string[]): Record<string, unknown> {
    return this.tokenResponse({ clientId, userId, scopes });
  }

  private redirectOk(client: MsClient, uri: string): boolean {
    return client.redirectUris.length === 0 ? isLoopback(uri) : client.redirectUris.includes(uri);
  }

  /** GET (the page, or `as=<user>` approving at once) and POST (the page's form). */
  authorize(params: URLSearchParams, method: string, tenant: string): Answer {
    const now = this.now();
    const clientId = params.get("client_id") ?? "";
    const client = this.clients.get(clientId);
    if (!client) {
      return htmlPage(
        400,
        "Sign in",
        `<p>AADSTS700016: Application with identifier '${escapeHtml(clientId)}' was not found in the directory.</p>`,
      );
    }
    const redirectUri = params.get("redirect_uri") ?? client.redirectUris[0] ?? "";
    if (!this.redirectOk(client, redirectUri)) {
      return htmlPage(
        400,
        "Sign in",
        `<p>AADSTS50011: The redirect URI '${escapeHtml(redirectUri)}' specified in the request does not match the redirect URIs configured for the application.</p>`,
      );
    }
    const state = params.get("state");
    const back = (extra: Record<string, string>) => {
      const u = new URL(redirectUri);
      for (const [k, v] of Object.entries(extra)) u.searchParams.set(k, v);
      if (state !== null) u.searchParams.set("state", state);
      return redirect(u.toString());
    };
    if (params.get("response_type") !== "code") {
      return back({
        error: "unsupported_response_type",
        error_description: "AADSTS700054: response_type 'code' is required by this emulator.",
      });
    }
    const scopes = scopesOf(params.get("scope") ?? undefined);
    if (scopes.length === 0) {
      return back({
        error: "invalid_request",
        error_description:
          "AADSTS900144: The request body must contain the following parameter: 'scope'.",
      });
    }
    const as = params.get("as");
    const decision = method === "POST" ? params.get("decision") : as ? "allow" : undefined;
    if (decision === undefined || decision === null) {
      return this.consentPage(client, tenant, scopes, params);
    }
    if (decision !== "allow") {
      return back({
        error: "access_denied",
        error_description: "AADSTS65004: User declined to consent to access the app.",
      });
    }
    const user = as ? this.model.users.get(as) : undefined;
    if (!user)
      return htmlPage(400, "Sign in", "<p>AADSTS50034: The user account does not exist.</p>");
    const code = token("0.A");
    this.codes.set(code, {
      clientId,
      userId: user.id,
      redirectUri,
      scopes,
      issuedAt: now,
      redeemed: false,
    });
    return back({ code, session_state: token("") });
  }

  private consentPage(
    client: MsClient,
    tenant: string,
    scopes: string[],
    params: URLSearchParams,
  ): Answer {
    const hidden = [...params]
      .filter(([k]) => k !== "as" && k !== "decision")
      .map(([k, v]) => `<input type="hidden" name="${escapeHtml(k)}" value="${escapeHtml(v)}">`)
      .join("\n");
    const users = [...this.model.users.values()]
      .map(
        (u) =>
          `<option value="${escapeHtml(u.id)}">${escapeHtml(u.displayName)} (${escapeHtml(u.userPrincipalName)})</option>`,
      )
      .join("\n");
    const asked = scopes.map((s) => `<li><code>${escapeHtml(s)}</code></li>`).join("\n");
    return htmlPage(
      200,
      "Permissions requested",
      [
        `<h1>${escapeHtml(client.name ?? client.clientId)} needs your permission</h1>`,
        `<ul>${asked}</ul>`,
        `<form method="post" action="/${escapeHtml(tenant)}/oauth2/v2.0/authorize">`,
        hidden,
        `<label for="as">Account</label> <select id="as" name="as">${users}</select>`,
        '<button type="submit" name="decision" value="allow">Accept</button>',
        '<button type="submit" name="decision" value="cancel">Cancel</button>',
        "</form>",
      ].join("\n"),
    );
  }

  /** `POST /{tenant}/oauth2/v2.0/token`, form-encoded. */
  token(form: URLSearchParams, authorization: string | undefined): Answer {
    const now = this.now();
    let clientId = form.get("client_id") ?? "";
    let secret = form.get("client_secret") ?? undefined;
    const basic = authorization?.match(/^Basic\s+(\S+)$/i)?.[1];
    if (basic) {
      const [id, pw] = Buffer.from(basic, "base64").toString("utf8").split(":");
      clientId = decodeURIComponent(id ?? "");
      secret = decodeURIComponent(pw ?? "");
    }
    const client = this.clients.get(clientId);
    if (!client) {
      return identityError(
        400,
        "unauthorized_client",
        700016,
        `Application with identifier '${clientId}' was not found in the directory.`,
        now,
      );
    }
    if (secret !== client.clientSecret) {
      return identityError(401, "invalid_client", 7000215, "Invalid client secret provided.", now);
    }
    const grantType = form.get("grant_type");
    if (grantType === "authorization_code") return this.redeemCode(form, client, now);
    if (grantType === "refresh_token") return this.redeemRefresh(form, client, now);
    if (!grantType) {
      return identityError(
        400,
        "invalid_request",
        900144,
        "The request body must contain the following parameter: 'grant_type'.",
        now,
      );
    }
    return identityError(
      400,
      "unsupported_grant_type",
      70003,
      "The app requested an unsupported grant type.",
      now,
    );
  }

  private redeemCode(form: URLSearchParams, client: MsClient, now: number): Answer {
    const code = this.codes.get(form.get("code") ?? "");
    if (!code || code.clientId !== client.clientId) {
      return identityError(
        400,
        "invalid_grant",
        70000,
        "The provided value for the 'code' parameter is not valid.",
        now,
      );
    }
    if (code.redeemed) {
      return identityError(
        400,
        "invalid_grant",
        54005,
        "OAuth2 Authorization code was already redeemed.",
        now,
      );
    }
    if (now - code.issuedAt >= CODE_LIFETIME_MS) {
      return identityError(
        400,
        "invalid_grant",
        70008,
        "The provided authorization code or refresh token has expired due to inactivity.",
        now,
      );
    }
    if ((form.get("redirect_uri") ?? "") !== code.redirectUri) {
      return identityError(
        400,
        "invalid_grant",
        50011,
        "The redirect URI specified in the request does not match the one the code was issued to.",
        now,
      );
    }
    code.redeemed = true;
    return {
      status: 200,
      body: this.tokenResponse(code),
      headers: { "cache-control": "no-store" },
    };
  }

  private redeemRefresh(form: URLSearchParams, client: MsClient, now: number): Answer {
    const grant = this.refreshTokens.get(form.get("refresh_token") ?? "");
    if (!grant || grant.clientId !== client.clientId) {
      return identityError(
        400,
        "invalid_grant",
        9002313,
        "Invalid request. Request is malformed or invalid.",
        now,
      );
    }
    if (grant.revoked) {
      return identityError(
        400,
        "invalid_grant",
        50173,
        "The provided grant has expired due to it being revoked, a fresh auth token is needed.",
        now,
      );
    }
    return {
      status: 200,
      body: this.tokenResponse(grant),
      headers: { "cache-control": "no-store" },
    };
  }

  private tokenResponse(g: { clientId: string; userId: string; scopes: string[] }) {
    const accessToken = token("eyJ0eXAiOiJKV1QiLCJhbGciOiJub25lIn0.");
    this.accessTokens.set(accessToken, {
      clientId: g.clientId,
      userId: g.userId,
      scopes: g.scopes,
      expiresAt: this.now() + ACCESS_TOKEN_LIFETIME_S * 1000,
    });
    const body: Record<string, unknown> = {
      token_type: "Bearer",
      scope: g.scopes.filter((s) => s !== "offline_access").join(" "),
      expires_in: ACCESS_TOKEN_LIFETIME_S,
      ext_expires_in: ACCESS_TOKEN_LIFETIME_S,
      access_token: accessToken,
    };
    if (g.scopes.includes("offline_access")) {
      const refreshToken = token("1.A");
      this.refreshTokens.set(refreshToken, { ...g, revoked: false });
      body.refresh_token = refreshToken;
    }
    return body;
  }
}
