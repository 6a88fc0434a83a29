import { ProviderError } from "./errors";
import type { CalendarOAuth } from "./provider";

/**
 * The Microsoft identity platform's v2 authorization code flow: the authorize URL asks for
 * `offline_access Calendars.Read` (a refresh token and read access to the user's calendars), and
 * the token endpoint takes a code or a refresh token. `invalid_grant` (an expired, revoked or
 * spent grant) means the user must connect again.
 */
export const GRAPH_SCOPES = "offline_access Calendars.Read";

interface TokenAnswer {
  access_token?: unknown;
  refresh_token?: unknown;
  expires_in?: unknown;
  error?: unknown;
  error_codes?: unknown;
}

export const graphOAuth: CalendarOAuth = {
  authorizeUrl({ clientId, redirectUri, state, authUrl }) {
    const url = new URL(authUrl);
    url.searchParams.set("client_id", clientId);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("redirect_uri", redirectUri);
    url.searchParams.set("response_mode", "query");
    url.searchParams.set("scope", GRAPH_SCOPES);
    url.searchParams.set("state", state);
    return url.toString();
  },

  async exchange({ grant, clientId, clientSecret, tokenUrl }, fetch) {
    const form = new URLSearchParams({
      client_id: clientId,
      client_secret: clientSecret,
      scope: GRAPH_SCOPES,
    });
    if ("code" in grant) {
      form.set("grant_type", "authorization_code");
      form.set("code", grant.code);
      form.set("redirect_uri", grant.redirectUri);
    } else {
      form.set("grant_type", "refresh_token");
      form.set("refresh_token", grant.refreshToken);
    }
    let res: Response;
    try {
      res = await fetch(tokenUrl, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: form.toString(),
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error: unknown) {
      throw new ProviderError(
        "upstream_status",
        "the Microsoft token endpoint could not be reached",
        {},
        { cause: error },
      );
    }
    let body: TokenAnswer = {};
    try {
      body = (await res.json()) as TokenAnswer;
    } catch {
      // a body that is not JSON is judged by the status alone
    }
    if (res.ok && typeof body.access_token === "string") {
      return {
        accessToken: body.access_token,
        ...(typeof body.refresh_token === "string" ? { refreshToken: body.refresh_token } : {}),
        expiresInS:
          typeof body.expires_in === "number" ? body.expires_in : Number(body.expires_in ?? 3600),
      };
    }
    // Only the error name and its AADSTS numbers: the description may echo request values.
    const codes = Array.isArray(body.error_codes)
      ? ` (AADSTS${body.error_codes.join(", AADSTS")})`
      : "";
    const name = typeof body.error === "string" ? body.error : `HTTP ${res.status}`;
    if (body.error === "invalid_grant") {
      throw new ProviderError(
        "invalid_grant",
        `Microsoft refused the grant: invalid_grant${codes}`,
        { status: res.status },
      );
    }
    if (res.status === 429) {
      throw new ProviderError("rate_limited", "Microsoft's token endpoint is throttling", {
        status: 429,
        retryAfterS: Math.max(1, Number(res.headers.get("retry-after") ?? 1) || 1),
      });
    }
    throw new ProviderError(
      "upstream_status",
      `Microsoft's token endpoint answered ${name}${codes}`,
      { status: res.status },
    );
  },
};
