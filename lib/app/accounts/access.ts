import { ProviderError } from "#lib/calendar/providers/errors";
import type { ApiReadDeps } from "#lib/calendar/providers/provider";
import type { SourceRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import type { Config } from "../config";
import type { UseCaseContext } from "../context";
import { queueNotice } from "../notice-queue";
import { mutateUser } from "../status/records";
import {
  type ConnectProvider,
  type ConnectSettings,
  connectProviderOfKind,
  requireSettings,
} from "./providers";

/**
 * Access to a connected account: the refresh token is stored sealed on the source; an access
 * token is obtained from it at the provider's token endpoint and kept in memory until shortly
 * before it expires (a cold start asks again). A refused refresh token (`invalid_grant`) flags
 * the source "reconnect": the settings page then asks the person to connect again.
 */
export interface ConnectAccessDeps {
  ctx: UseCaseContext;
  config: Config;
  fetch: typeof fetch;
  /** Reads an SSM SecureString (cached); `variable` names it in errors. */
  readParameter(name: string, variable: string): Promise<string>;
}

/** Renewed this long before the provider says it expires. */
const EARLY_MS = 60_000;

/** Whose a connected account's refresh token is: sealed to the user and the field. */
const refreshTokenOwner = (key: UserKey) =>
  ({ team: key.team, user: key.user, field: "calendar_refresh_token" }) as const;

/** The one place a connected account's refresh token is sealed… */
export const sealRefreshToken = (
  ctx: UseCaseContext,
  key: UserKey,
  plain: string,
): Promise<string> => ctx.tokens.seal(plain, refreshTokenOwner(key));
/** …and opened. */
export const openRefreshToken = (
  ctx: UseCaseContext,
  key: UserKey,
  sealed: string,
): Promise<string> => ctx.tokens.open(sealed, refreshTokenOwner(key));

export async function clientSecretOf(
  deps: ConnectAccessDeps,
  provider: ConnectProvider,
  settings: ConnectSettings,
): Promise<string> {
  return "clear" in settings.secret
    ? settings.secret.clear
    : deps.readParameter(
        settings.secret.param,
        `${provider.path.toUpperCase()}_CLIENT_SECRET_PARAM`,
      );
}

/**
 * Exchanges a sealed refresh token at the provider's token endpoint; stores nothing. Answers the
 * opened refresh token beside the provider's answer (a rotating provider sends a new one).
 */
export async function exchangeSealedRefreshToken(
  deps: ConnectAccessDeps,
  provider: ConnectProvider,
  key: UserKey,
  sealed: string,
  fetchFn: typeof fetch = deps.fetch,
) {
  const settings = requireSettings(provider, deps.config);
  const refreshToken = await openRefreshToken(deps.ctx, key, sealed);
  const answer = await provider.oauth.exchange(
    {
      grant: { refreshToken },
      clientId: settings.clientId,
      clientSecret: await clientSecretOf(deps, provider, settings),
      tokenUrl: settings.tokenUrl,
    },
    fetchFn,
  );
  return { refreshToken, answer };
}

export interface ConnectAccess {
  /** The API deps of a connected source (its provider's base URL, a fresh access token). */
  apiDeps(key: UserKey, source: SourceRecord): ApiReadDeps;
  /** Records that the source's refresh token was refused. */
  flagReconnect(key: UserKey, sourceId: string): Promise<void>;
  /**
   * Keeps an access token just obtained (at connect) for the grant sealed as
   * `refreshTokenSealed`, so the first calls need no refresh.
   */
  remember(
    key: UserKey,
    sourceId: string,
    grant: { accessToken: string; expiresInS: number; refreshTokenSealed: string },
  ): void;
}

export function createConnectAccess(deps: ConnectAccessDeps): ConnectAccess {
  // Each token is kept with the sealed refresh token it came from: after the person connects
  // another account to the same source, a token of the old grant (kept by this instance within
  // the hour) would read the old account's calendar, so it no longer matches.
  const cache = new Map<string, { token: string; until: number; grant: string }>();
  const { ctx } = deps;

  const refresh = async (key: UserKey, source: SourceRecord): Promise<string> => {
    const provider = connectProviderOfKind(source.kind);
    if (provider === undefined || source.refreshTokenSealed === undefined) {
      throw new ProviderError("invalid_grant", `source ${source.id} is not connected`);
    }
    const { refreshToken, answer } = await exchangeSealedRefreshToken(
      deps,
      provider,
      key,
      source.refreshTokenSealed,
    );
    const until = ctx.clock.now() + answer.expiresInS * 1000 - EARLY_MS;
    let grant = source.refreshTokenSealed;
    // A provider that rotates refresh tokens sends a new one: keep it, but only in place of the
    // one it replaces (a person who connected another account meanwhile keeps the new grant).
    if (answer.refreshToken !== undefined && answer.refreshToken !== refreshToken) {
      const spent = grant;
      const sealed = await sealRefreshToken(ctx, key, answer.refreshToken);
      const holds = (s: SourceRecord) => s.id === source.id && s.refreshTokenSealed === spent;
      await mutateUser(ctx, key, (u) =>
        u.sources.some(holds)
          ? {
              ...u,
              sources: u.sources.map((s) => (holds(s) ? { ...s, refreshTokenSealed: sealed } : s)),
            }
          : undefined,
      );
      grant = sealed;
    }
    cache.set(cacheKey(key, source.id), { token: answer.accessToken, until, grant });
    return answer.accessToken;
  };

  return {
    apiDeps(key, source) {
      const provider = connectProviderOfKind(source.kind);
      const settings = provider === undefined ? undefined : provider.settings(deps.config);
      return {
        fetch: deps.fetch,
        clock: ctx.clock,
        apiBaseUrl: settings?.apiBaseUrl ?? "",
        accessToken: async () => {
          const cached = cache.get(cacheKey(key, source.id));
          if (
            cached !== undefined &&
            cached.until > ctx.clock.now() &&
            cached.grant === source.refreshTokenSealed
          ) {
            return cached.token;
          }
          return refresh(key, source);
        },
        refreshAccessToken: () => refresh(key, source),
      };
    },
    remember(key, sourceId, { accessToken, expiresInS, refreshTokenSealed }) {
      const until = ctx.clock.now() + expiresInS * 1000 - EARLY_MS;
      cache.set(cacheKey(key, sourceId), { token: accessToken, until, grant: refreshTokenSealed });
    },
    async flagReconnect(key, sourceId) {
      cache.delete(cacheKey(key, sourceId));
      const now = ctx.clock.now();
      const flagged = await mutateUser(ctx, key, (u) =>
        u.sources.some((s) => s.id === sourceId && s.reconnectSince === undefined)
          ? {
              ...u,
              sources: u.sources.map((s) =>
                s.id === sourceId ? { ...s, reconnectSince: now } : s,
              ),
            }
          : undefined,
      );
      // A grant that died: the person is told once, and their Home tab shows it.
      if (flagged) await queueNotice(ctx.queue, ctx.clock, key);
    },
  };
}

const cacheKey = (key: UserKey, sourceId: string) => `${key.team}/${key.user}/${sourceId}`;
