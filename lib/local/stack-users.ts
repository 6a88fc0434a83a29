import type { App } from "#devstack/app";
import { ConfigError } from "#devstack/errors";
import type { StateDir } from "#devstack/state";
import type { SyncMessage } from "#lib/app/contracts";
import type { Queue } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import { channelToken, newChannelId } from "#lib/http/channel-token";
import { type LocalUserConfig, localSourceId } from "./stack-types";

/** The user-admin functions the stack needs from the composition root (lib/app). */
export interface LocalUserAdmin {
  upsertUser(input: {
    key: UserKey;
    tz: string;
    token: string;
    sources: Array<{ id: string; url: string; kind: "ics"; secret?: string }>;
    rules?: Record<string, unknown>;
    emails?: string[];
    mode: "auto";
  }): Promise<unknown>;
  putChannel(
    channelId: string,
    binding: { key: UserKey; sourceId: string; secret?: string; kind: "generic" },
  ): Promise<void>;
  getStatusView?(key: UserKey): Promise<unknown>;
  /** The teams in which this user id has a profile, however they came in. */
  teamsOfUser?(user: string): Promise<string[]>;
}

export const adminOf = (app: App): LocalUserAdmin => {
  const admin = (app.pilot ?? app.admin) as unknown as Partial<LocalUserAdmin>;
  if (typeof admin.upsertUser !== "function" || typeof admin.putChannel !== "function") {
    throw new ConfigError(
      "the app offers no upsertUser/putChannel; users cannot be registered",
      "/users",
    );
  }
  return admin as LocalUserAdmin;
};

/** A source's generic hook, as `/_local/hooks` lists it. */
export interface LocalHook {
  team: string;
  user: string;
  sourceId: string;
  channelId: string;
  secret: string;
}

/**
 * Registers the configured users, each calendar a source `calN` with a generic hook, and
 * queues a first sync of every calendar. A kept stack (`stateDir`) keeps its channel ids, so
 * hook URLs given out before a restart still work.
 */
export async function registerUsers(deps: {
  app: App;
  users: readonly LocalUserConfig[];
  stateDir: StateDir | undefined;
  syncQueue: Queue<SyncMessage>;
  /** The app's bot as the workspace gave it (the Home tab and messages of these users). */
  bot?: { team: string; token: string; botUser: string } | undefined;
}): Promise<LocalHook[]> {
  const { app, stateDir } = deps;
  if (deps.bot !== undefined)
    await app.notify?.recordBot(deps.bot.team, deps.bot.token, deps.bot.botUser);
  const admin = adminOf(app);
  const hooks: LocalHook[] = [];
  for (const u of deps.users) {
    const signingSecret = await app.signingSecret();
    const sources = u.calendars.map((url, i) => {
      const id = localSourceId(i);
      // Hook URLs name the channel, so its id is random (128 bits), never TEAM.USER.calN;
      // the hook's signing key is the channel token derived from that id.
      const channelKey = `${u.team}/${u.user}/${id}`;
      const channelId = stateDir?.state.channels[channelKey] ?? newChannelId();
      if (stateDir) stateDir.state.channels[channelKey] = channelId;
      const secret = channelToken(signingSecret, channelId);
      return { id, url, kind: "ics" as const, secret, channelId };
    });
    await admin.upsertUser({
      key: { team: u.team, user: u.user },
      tz: u.tz,
      token: u.token,
      sources: sources.map(({ channelId: _channelId, ...source }) => source),
      ...(u.rules ? { rules: u.rules } : {}),
      ...(u.emails ? { emails: u.emails } : {}),
      mode: "auto",
    });
    for (const s of sources) {
      await admin.putChannel(s.channelId, {
        key: { team: u.team, user: u.user },
        sourceId: s.id,
        secret: s.secret,
        // So a Google or Graph hook naming this id is refused, whatever it is signed with.
        kind: "generic",
      });
      hooks.push({
        team: u.team,
        user: u.user,
        sourceId: s.id,
        channelId: s.channelId,
        secret: s.secret,
      });
    }
    for (const s of sources) {
      await deps.syncQueue.send({ team: u.team, user: u.user, sourceId: s.id, reason: "manual" });
    }
  }
  return hooks;
}
