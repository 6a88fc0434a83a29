// lib/app/connect: connecting and disconnecting a calendar account, and reading a source connected
// through it.
import { ProviderError } from "#lib/calendar/providers/errors";
import type { SourceRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import {
  type ConnectAccessDeps,
  clientSecretOf,
  exchangeSealedRefreshToken,
  sealRefreshToken,
} from "../accounts/access";
import { type ConnectProvider, requireSettings } from "../accounts/providers";
import { InvalidInputError } from "../errors";
import { MAX_CALENDARS } from "../inputs";
import { type PushScheduleDeps, runUpkeep } from "../push/schedule";
import {
  type PushUpkeepDeps,
  retireBinding,
  stopPush,
  type UpkeepOutcome,
  upkeepPush,
} from "../push/upkeep";
import { mutateUser } from "../status/records";

/**
 * Connecting a calendar account (after the provider's consent) and disconnecting it. A
 * person has at most one connected calendar per provider: connecting again (after an
 * `invalid_grant`, say, or to pick another account) replaces the refresh token of the same source
 * and keeps its id. What the old grant made goes with it: its read cursor and its push channel,
 * which watch the calendar connected then (maybe another account's), so the first upkeep opens a
 * channel under the new grant at once.
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
  /** The source as the grant being replaced left it (connecting again). */
  let replaced: SourceRecord | undefined;
  await mutateUser(ctx, key, (u) => {
    const existing = u.sources.find(
      (s) => s.kind === provider.kind && s.refreshTokenSealed !== undefined,
    );
    replaced = existing;
    if (existing !== undefined) {
      sourceId = existing.id;
      const { reconnectSince: _gone, cursor: _stale, push: _oldChannel, ...kept } = existing;
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
  const oldPush = replaced?.push;
  if (replaced !== undefined && oldPush !== undefined) {
    // At once, with no grace: its pushes, even those on the way, are about the old grant's
    // calendar, and the full read that follows the new channel covers the rest.
    await retireBinding(ctx, key, replaced, oldPush, ctx.clock.now()).catch((error: unknown) => {
      ctx.log.warn("replaced push binding not retired", { ...key, sourceId, code: codeOf(error) });
    });
  }
  deps.upkeep.access.remember(key, sourceId, {
    accessToken: grant.accessToken,
    expiresInS: grant.expiresInS,
    refreshTokenSealed,
  });
  const user = await ctx.store.getUser(key);
  const source = user?.sources.find((s) => s.id === sourceId);
  const push = await firstUpkeep(deps, key, source);
  if (replaced !== undefined) await stopReplacedChannel(deps, provider, key, replaced);
  return { sourceId, created: sourceId === newId, push };
}

/** The connected source's first channel, and (scheduled) its next upkeep. */
async function firstUpkeep(
  deps: ConnectFlowDeps,
  key: UserKey,
  source: SourceRecord | undefined,
): Promise<UpkeepOutcome> {
  if (source === undefined) return { kind: "none" };
  if (deps.scheduled === undefined) return upkeepPush(deps.upkeep, key, source);
  // Due now, then claimed: a claim without an entry holds nothing, so without it a repair could
  // open a second channel meanwhile, and a connect that dies before the upkeep's own `set` would
  // leave no upkeep at all (this way the tick runs it).
  const { schedule } = deps.scheduled;
  await schedule.set({ key, sourceId: source.id, dueAt: deps.ctx.clock.now(), failures: 0 });
  // The caller queues the first read itself.
  const run = await runUpkeep(deps.scheduled, key, source.id, { readNewChannel: false });
  return run.kind === "busy" || run.kind === "gone" ? { kind: "none" } : run;
}

/** How long each call stopping a replaced grant's channel may take: the person is waiting. */
const STOP_REPLACED_TIMEOUT_MS = 5_000;

/**
 * Stops, best effort, the channel the replaced grant opened, so that it stops pushing about a
 * calendar no longer connected (Google pushes until channels.stop or its expiry, up to 7 days;
 * each push costs the hook a read before it is refused). Only the old grant can stop it (the new
 * one may be another account's), so its refresh token is exchanged here, apart from the
 * connection's access (lib/app/accounts/access.ts), which would store a rotated refresh token, or
 * flag a refused one, on the source that now holds the new grant: here nothing is stored or
 * flagged, whatever the answer. Skipped when the old grant was already refused (`invalid_grant`)
 * or its channel has expired. It runs after the new channel is opened, each call time-bounded,
 * and never fails the connect. Its cost, one KMS opening and two provider calls, comes once per
 * reconnect.
 */
async function stopReplacedChannel(
  deps: ConnectFlowDeps,
  provider: ConnectProvider,
  key: UserKey,
  replaced: SourceRecord,
): Promise<void> {
  const { ctx } = deps;
  const push = replaced.push;
  if (
    push === undefined ||
    push.expiresAt <= ctx.clock.now() ||
    replaced.refreshTokenSealed === undefined ||
    replaced.reconnectSince !== undefined
  ) {
    return;
  }
  const bounded: typeof fetch = (input, init) =>
    deps.fetch(input, {
      ...init,
      signal: init?.signal ?? AbortSignal.timeout(STOP_REPLACED_TIMEOUT_MS),
    });
  try {
    const { answer: oldGrant } = await exchangeSealedRefreshToken(
      deps,
      provider,
      key,
      replaced.refreshTokenSealed,
      bounded,
    );
    const settings = requireSettings(provider, deps.config);
    await provider.lifecycle(settings.apiBaseUrl).unsubscribe(push, {
      fetch: bounded,
      clock: ctx.clock,
      accessToken: async () => oldGrant.accessToken,
    });
  } catch (error: unknown) {
    ctx.log.warn("replaced push channel stop failed", {
      ...key,
      sourceId: replaced.id,
      code: codeOf(error),
    });
  }
}

const codeOf = (error: unknown): string => (error instanceof ProviderError ? error.code : "error");

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
