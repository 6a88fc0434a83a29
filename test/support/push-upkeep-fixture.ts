import { createConnectAccess } from "#lib/app/accounts/access";
import { loadConfig } from "#lib/app/config";
import type { UseCaseDeps } from "#lib/app/context";
import type { SyncMessage } from "#lib/app/contracts";
import type { PushScheduleDeps } from "#lib/app/push/schedule";
import type { PushUpkeepDeps } from "#lib/app/push/upkeep";
import { LocalTokenVault } from "#lib/app/secrets/local-vault";
import { ManualClock } from "#lib/core/clock";
import type { Queue } from "#lib/core/ports";
import type { ChannelRecord, SourceRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import type { UpkeepSchedule } from "#lib/core/upkeep-schedule";
import { MemoryStore } from "#lib/store/memory-store";
import { MemoryUpkeepSchedule } from "#lib/store/memory-upkeep-schedule";
import { plainUser, statuslessContext } from "../integration/app/statusless-context";

// For the tests of a source's push upkeep: what the sync worker's upkeep runs with (a store, a
// context on a hand-moved clock, the configuration of one provider, the connected accounts'
// access, the upkeep's due index and the sync queue), built one way for all of them.

/** The instant the upkeep tests start at, and the user they keep. */
export const T0 = Date.UTC(2026, 3, 1, 9);
export const KEY: UserKey = { team: "T0DEMO", user: "U001" };
/** Where the fixture's configuration sends Google's Calendar API and Microsoft Graph. */
export const GOOGLE_API = "https://google.example";
export const GRAPH_API = "https://graph.example/v1.0";

type Store = UseCaseDeps["store"];

const DAY = 86_400_000;

/**
 * A Google calendar whose 7-day channel "old-channel" is at its renewal at T0 (past 80 % of its
 * lifetime), its refresh token sealed as "sealed-refresh-token".
 */
export const googleAtRenewal = (): SourceRecord => ({
  id: "google-1",
  kind: "google",
  url: `${GOOGLE_API}/calendar/v3/calendars/primary`,
  refreshTokenSealed: "sealed-refresh-token",
  push: {
    channelId: "old-channel",
    resourceId: "res-0",
    createdAt: T0 - 6 * DAY,
    expiresAt: T0 + DAY,
  },
});

export interface PushUpkeepFixtureOptions<S extends Store> {
  /** Whose settings the configuration holds: Google's, Microsoft Graph's, or no provider's. */
  provider: "google" | "graph" | "none";
  /** The store (a MemoryStore when not given), e.g. one whose writes fail on demand. */
  store?: S;
  /** The clock (at T0 when not given). */
  clock?: ManualClock;
  /** The provider's HTTP API as the test fakes it (the real fetch when not given). */
  fetch?: typeof fetch;
  /** The id each new channel gets. */
  newChannelId?: () => string;
  /** The upkeep's due index (in memory when not given). */
  schedule?: UpkeepSchedule;
  /** The configuration's table name. */
  tableName?: string;
  /** More configuration (e.g. the provider's token endpoint). */
  env?: Record<string, string>;
  /** The user written first: created at `since`, with `sources`. None when not given. */
  user?: { since: number; sources: SourceRecord[] };
  /** An access token held already for this source, refreshed from `refreshTokenSealed`. */
  remembered?: { sourceId: string; refreshTokenSealed: string; expiresInS?: number };
}

const PROVIDER_ENV: Record<PushUpkeepFixtureOptions<Store>["provider"], Record<string, string>> = {
  google: {
    PUBLIC_BASE_URL: "https://statuspilot.example",
    GOOGLE_CLIENT_ID: "client",
    GOOGLE_CLIENT_SECRET: "secret",
    GOOGLE_API_BASE_URL: GOOGLE_API,
  },
  graph: {
    PUBLIC_BASE_URL: "https://statuspilot.example",
    MICROSOFT_CLIENT_ID: "client",
    MICROSOFT_CLIENT_SECRET: "secret",
    MICROSOFT_GRAPH_BASE_URL: GRAPH_API,
  },
  none: {},
};

/** The upkeep's dependencies over `opts`; `sent` records what went on the sync queue. */
export async function pushUpkeepFixture<S extends Store = MemoryStore>(
  opts: PushUpkeepFixtureOptions<S>,
) {
  const clock = opts.clock ?? new ManualClock(T0);
  const store = (opts.store ?? new MemoryStore()) as S;
  const ctx = statuslessContext({
    store,
    clock,
    tokens: new LocalTokenVault(Buffer.alloc(32, 3)),
  });
  if (opts.user !== undefined) {
    await store.putUser(plainUser(KEY, opts.user.since, opts.user.sources), undefined);
  }
  const config = loadConfig({
    TABLE_NAME: opts.tableName ?? "t",
    SERVICE_BASE_URL: "https://svc.example/api",
    SIGNING_SECRET: "s",
    TOKEN_KEY: "k",
    ...PROVIDER_ENV[opts.provider],
    ...opts.env,
  });
  const accessDeps = {
    ctx,
    config,
    fetch: opts.fetch ?? fetch,
    readParameter: async () => "",
  };
  const access = createConnectAccess(accessDeps);
  if (opts.remembered !== undefined) {
    access.remember(KEY, opts.remembered.sourceId, {
      accessToken: "access-token",
      expiresInS: opts.remembered.expiresInS ?? 3600,
      refreshTokenSealed: opts.remembered.refreshTokenSealed,
    });
  }
  const schedule = opts.schedule ?? new MemoryUpkeepSchedule();
  const upkeep: PushUpkeepDeps = {
    ctx,
    config,
    access,
    signingSecret: async () => "s",
    newChannelId: opts.newChannelId ?? (() => "c"),
    schedule,
  };
  const sent: SyncMessage[] = [];
  const syncQueue: Queue<SyncMessage> = { send: async (m) => void sent.push(m) };
  const deps: PushScheduleDeps = { upkeep, schedule, syncQueue };
  /** Binds `channelId` to `key`'s source (KEY's by default), as the provider's pushes find it. */
  const bind = (channelId: string, sourceId: string, kind: ChannelRecord["kind"], key = KEY) =>
    store.putChannel({ channelId, key, sourceId, kind, version: 0 }, undefined);
  return { clock, store, ctx, config, accessDeps, access, schedule, upkeep, deps, sent, bind };
}
