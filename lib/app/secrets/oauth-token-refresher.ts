import type { Clock } from "#lib/core/clock";
import {
  APP_SEAL_OWNER,
  GatewayError,
  type Log,
  type RefreshedToken,
  type TokenRefresher,
  type TokenVault,
} from "#lib/core/ports";
import type { OAuthClient, OAuthError } from "#lib/service/oauth-client";
import { type Config, ConfigError } from "../config";

/**
 * The TokenRefresher port over the service's OAuth client. A dead refresh token (or revoked
 * grant) is final: the user is flagged to reconnect. Anything else is retried later, including
 * our own misconfiguration (a wrong client secret), so no user is lost while an operator fixes it.
 */
export function oauthTokenRefresher(
  client: () => Promise<Pick<OAuthClient, "refresh">>,
): TokenRefresher {
  return {
    async refresh(refreshToken: string): Promise<RefreshedToken> {
      try {
        const r = await (await client()).refresh(refreshToken);
        return { accessToken: r.accessToken, refreshToken: r.refreshToken, expiresAt: r.expiresAt };
      } catch (error: unknown) {
        // Read structurally: the OAuth client is loaded lazily, so its class is not imported.
        const failure: Partial<Pick<OAuthError, "code" | "kind" | "retryAfterS">> =
          typeof error === "object" && error !== null ? error : {};
        const code = failure.code ?? "unexpected";
        const final = failure.kind === "reauthorize";
        throw new GatewayError(
          `token refresh: ${code}`,
          code,
          !final,
          final,
          final ? undefined : failure.retryAfterS,
          { cause: error },
        );
      }
    },
  };
}

/** The OAuth client's module, loaded on the first refresh (app.ts's `lazy.oauth`). */
export type LoadOAuthClient = () => Promise<typeof import("#lib/service/oauth-client")>;

/**
 * Token rotation's refresher: the OAuth client (loaded on first refresh) with the app's client
 * credentials. Without a client id, tokens are used as stored (rotation off). The secret is
 * `OAUTH_CLIENT_SECRET` in clear (local), or `OAUTH_CLIENT_SECRET_SEALED`, sealed like the
 * users' tokens and opened with the same vault: every function that reconciles can already
 * open sealed values, and an SSM client would not fit the transition worker's bundle.
 */
export function tokenRefresherFor(
  config: Config,
  parts: { clock: Clock; fetch: typeof fetch; log: Log; tokens: TokenVault },
  loadOAuthClient: LoadOAuthClient,
): TokenRefresher | undefined {
  const clientId = config.OAUTH_CLIENT_ID;
  if (clientId === undefined) return undefined;
  const { tokens, ...transport } = parts;
  let client: Promise<OAuthClient> | undefined;
  return oauthTokenRefresher(() => {
    client ??= Promise.all([loadOAuthClient(), clientSecretOf(config, tokens)]).then(
      ([{ OAuthClient }, clientSecret]) =>
        new OAuthClient({ baseUrl: config.SERVICE_BASE_URL, clientId, clientSecret, ...transport }),
    );
    // A failed load is not kept: the next refresh tries again.
    client.catch(() => {
      client = undefined;
    });
    return client;
  });
}

async function clientSecretOf(config: Config, tokens: TokenVault): Promise<string> {
  if (config.OAUTH_CLIENT_SECRET !== undefined) return config.OAUTH_CLIENT_SECRET;
  const sealed = config.OAUTH_CLIENT_SECRET_SEALED;
  if (sealed === undefined) {
    throw new ConfigError(
      ["OAUTH_CLIENT_SECRET"],
      "configuration: OAUTH_CLIENT_SECRET is missing (set it or OAUTH_CLIENT_SECRET_SEALED)",
    );
  }
  return tokens.open(sealed, { ...APP_SEAL_OWNER, field: "oauth_client_secret" });
}
