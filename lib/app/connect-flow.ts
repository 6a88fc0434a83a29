import { ProviderError } from "#lib/calendar/providers/errors";
import type { SourceRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { type ConnectAccessDeps, clientSecretOf, sealRefreshToken } from "./connect-access";
import { type ConnectProvider, requireSettings } from "./connect-providers";
import { InvalidInputError } from "./errors";
import { type PushScheduleDeps, runUpkeep } from "./push-schedule";
import { type PushUpkeepDeps, stopPush, type UpkeepOutcome, upkeepPush } from "./push-upkeep";
import { MAX_CALENDARS } from "./self-service";
import { mutateUser } from "./status-records";

/**
 * Connecting a calendar account (after the provider's consent) and disconnecting it. A
 * person has at most one connected calendar per provider: connecting again (after an
 * `invalid_grant`, say) replaces the refresh token of the same source and keeps its id.
 */
export interface ConnectFlowDeps extends ConnectAccessDeps {
  upkeep: PushUpkeepDeps;
  /** With it, the first channel's upkeep is scheduled (its renewal, or a retry) in the due index. */
  scheduled?: PushScheduleDeps;
}

export interface ConnectOutcome {
  sourceId: string;
  created: boolean;
  push: UpkeepOutcome;
}

/** The authorize URL of `provider` for `state`. */
export function connectUrl(
  deps: Pick<ConnectAccessDeps, "config">,
  provider: ConnectProvider,
  p: { redirectUri: string; state: string },
): string {
  const settings = requireSettings(provider, deps.config);
  return provider.oauth.authorizeUrl({
    clientId: settings.clientId,
    redirectUri: p.redirectUri,
    state: p.state,
    authUrl: settings.authUrl,
  });
}

/**
 * Exchanges the code, stores the refresh token sealed on the person's source of the provider's
 * kind (new, or the one connected before), then opens its first push channel. A push channel
 * that cannot be opened now is retried by the upkeep; the connection stands.
 */
export async function completeConnect(
  deps: ConnectFlowDeps,
  provider: ConnectProvider,
  key: UserKey,
  p: { code: string; redirectUri: string },
): Promise<ConnectOutcome> {
  const { ctx } = deps;
  const settings = requireSettings(provider, deps.config);
  const grant = await provider.oauth.exchange(
    {
      grant: { code: p.code, redirectUri: p.redirectUri },
      clientId: settings.clientId,
      clientSecret: await clientSecretOf(deps, provider, settings),
      tokenUrl: settings.tokenUrl,
    },
    deps.fetch,
  );
  if (grant.refreshToken === undefined) {
    throw new ProviderError("invalid_grant", `${provider.label} sent no refresh token`);
  }
  const refreshTokenSealed = await sealRefreshToken(ctx, key, grant.refreshToken);
  const newId = `${provider.kind}-${ctx.newId()}`;
  let sourceId = newId;
  await mutateUser(ctx, key, (u) => {
    const existing = u.sources.find(
      (s) => s.kind === provider.kind && s.refreshTokenSealed !== undefined,
    );
    if (existing !== undefined) {
      sourceId = existing.id;
      const { reconnectSince: _gone, cursor: _stale, ...kept } = existing;
      return {
        ...u,
        sources: u.sources.map((s) => (s.id === existing.id ? { ...kept, refreshTokenSealed } : s)),
      };
    }
    sourceId = newId;
    if (u.sources.length >= MAX_CALENDARS) {
      throw new InvalidInputError(`at most ${MAX_CALENDARS} calendars`, "/sources");
    }
    const source: SourceRecord = {
      id: newId,
      // Not secret and never fetched as a feed: the account's primary calendar, for display.
      url: `${settings.apiBaseUrl.replace(/\/+$/, "")}/calendar/v3/calendars/primary`,
      kind: provider.kind,
      refreshTokenSealed,
    };
    return { ...u, sources: [...u.sources, source] };
  });
  deps.upkeep.access.remember(key, sourceId, grant.accessToken, grant.expiresInS);
  const user = await ctx.store.getUser(key);
  const source = user?.sources.find((s) => s.id === sourceId);
  return { sourceId, created: sourceId === newId, push: await firstUpkeep(deps, key, source) };
}

/** The connected source's first channel, and (scheduled) its next upkeep. */
async function firstUpkeep(
  deps: ConnectFlowDeps,
  key: UserKey,
  source: SourceRecord | undefined,
): Promise<UpkeepOutcome> {
  if (source === undefined) return { kind: "none" };
  if (deps.scheduled === undefined) return upkeepPush(deps.upkeep, key, source);
  // The caller queues the first read itself.
  const run = await runUpkeep(deps.scheduled, key, source.id, { readNewChannel: false });
  return run.kind === "busy" || run.kind === "gone" ? { kind: "none" } : run;
}

/** Stops the push channel of every connected source of `key` (before a removal or disconnect). */
export async function stopConnectedPushes(
  deps: ConnectFlowDeps,
  key: UserKey,
  only?: string,
): Promise<void> {
  const user = await deps.ctx.store.getUser(key);
  for (const source of user?.sources ?? []) {
    if (only !== undefined && source.id !== only) continue;
    await stopPush(deps.upkeep, key, source);
  }
}
