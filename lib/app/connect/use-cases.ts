import type { Queue } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import type { UpkeepSchedule } from "#lib/core/upkeep-schedule";
import { newChannelId } from "#lib/http/channel-token";
import { type ConnectAccessDeps, createConnectAccess } from "../accounts/access";
import {
  type ConnectProvider,
  configuredProviders,
  connectProviderAt,
} from "../accounts/providers";
import type { Config } from "../config";
import type { UseCaseContext } from "../context";
import type { SyncMessage } from "../contracts";
import { type PushState, pushStateOf } from "../push/plan";
import {
  enqueueDueUpkeeps,
  type PushScheduleDeps,
  runUpkeep,
  type UpkeepRun,
} from "../push/schedule";
import type { PushUpkeepDeps } from "../push/upkeep";
import { type ConnectedSync, createConnectedSync } from "./connected-sync";
import {
  type ConnectFlowDeps,
  type ConnectOutcome,
  completeConnect,
  connectUrl,
  stopConnectedPushes,
} from "./flow";

/** What the web layer and the CLI use of connected calendars (built by lib/app/compose/compose.ts). */
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
  /** The tick's part: queues the push upkeeps due now (lib/app/push/schedule.ts); how many. */
  enqueueDueUpkeeps(): Promise<number>;
  /** The sync worker's part: one source's push upkeep (a message of reason `upkeep`). */
  upkeep(msg: SyncMessage): Promise<UpkeepRun>;
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
  /** When each source's push upkeep is due (the due index). */
  upkeepSchedule: UpkeepSchedule;
  /** The sync queue: upkeep messages, and the read after a new channel. */
  syncQueue: Queue<SyncMessage>;
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
    schedule: deps.upkeepSchedule,
  };
  const scheduled: PushScheduleDeps = {
    upkeep,
    schedule: deps.upkeepSchedule,
    syncQueue: deps.syncQueue,
  };
  const flow: ConnectFlowDeps = { ...accessDeps, upkeep, scheduled };
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
    enqueueDueUpkeeps: () => enqueueDueUpkeeps(scheduled),
    upkeep: (msg) =>
      runUpkeep(scheduled, { team: msg.team, user: msg.user }, msg.sourceId, {
        ...(msg.upkeep !== undefined ? { upkeep: msg.upkeep } : {}),
        readNewChannel: true,
      }),
  };
  return { parts, sync: createConnectedSync(deps.ctx, access, scheduled) };
}
