import type { UserKey } from "#lib/core/types";
import { newChannelId } from "#lib/http/channel-token";
import type { Config } from "./config";
import { type ConnectAccessDeps, createConnectAccess } from "./connect-access";
import {
  type ConnectFlowDeps,
  type ConnectOutcome,
  completeConnect,
  connectUrl,
  stopConnectedPushes,
} from "./connect-flow";
import { type ConnectProvider, configuredProviders, connectProviderAt } from "./connect-providers";
import { type ConnectedSync, createConnectedSync } from "./connect-read";
import type { UseCaseContext } from "./context";
import { type PushState, pushStateOf } from "./push-plan";
import type { PushUpkeepDeps } from "./push-upkeep";

/** What the web layer and the CLI use of connected calendars (built by compose.ts). */
export interface ConnectParts {
  /** The providers that are configured: the settings page offers these. */
  providers(): ConnectProvider[];
  providerAt(path: string): ConnectProvider | undefined;
  authorizeUrl(provider: ConnectProvider, p: { redirectUri: string; state: string }): string;
  complete(
    provider: ConnectProvider,
    key: UserKey,
    p: { code: string; redirectUri: string },
  ): Promise<ConnectOutcome>;
  /** Stops the push channels of `key`'s connected sources (only `sourceId`'s, when given). */
  stopPushes(key: UserKey, sourceId?: string): Promise<void>;
  /** Each connected source's push state and expiry, for the settings page and the CLI. */
  pushStates(key: UserKey): Promise<SourcePushView[]>;
}

export interface SourcePushView {
  sourceId: string;
  kind: string;
  state: PushState;
  expiresAt?: number;
}

export interface ConnectPartsDeps {
  ctx: UseCaseContext;
  config: Config;
  fetch: typeof fetch;
  readParameter(name: string, variable: string): Promise<string>;
  signingSecret(): Promise<string>;
  /** The lifetime asked for push channels (short in soaks); the provider default otherwise. */
  pushTtlMs?: number;
}

export function createConnectParts(deps: ConnectPartsDeps): {
  parts: ConnectParts;
  sync: ConnectedSync;
} {
  const accessDeps: ConnectAccessDeps = {
    ctx: deps.ctx,
    config: deps.config,
    fetch: deps.fetch,
    readParameter: deps.readParameter,
  };
  const access = createConnectAccess(accessDeps);
  const upkeep: PushUpkeepDeps = {
    ctx: deps.ctx,
    config: deps.config,
    access,
    signingSecret: deps.signingSecret,
    newChannelId,
    ...(deps.pushTtlMs !== undefined ? { ttlMs: deps.pushTtlMs } : {}),
  };
  const flow: ConnectFlowDeps = { ...accessDeps, upkeep };
  const parts: ConnectParts = {
    providers: () => configuredProviders(deps.config),
    providerAt: connectProviderAt,
    authorizeUrl: (provider, p) => connectUrl(deps, provider, p),
    complete: (provider, key, p) => completeConnect(flow, provider, key, p),
    stopPushes: (key, sourceId) => stopConnectedPushes(flow, key, sourceId),
    async pushStates(key) {
      const user = await deps.ctx.store.getUser(key);
      const now = deps.ctx.clock.now();
      return (user?.sources ?? [])
        .filter((s) => s.refreshTokenSealed !== undefined)
        .map((s) => ({ sourceId: s.id, kind: s.kind, ...pushStateOf(s, now) }));
    },
  };
  return { parts, sync: createConnectedSync(deps.ctx, access, upkeep) };
}
