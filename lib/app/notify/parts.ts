import type { Clock } from "#lib/core/clock";
import type { NoticeStore } from "#lib/core/notice-store";
import type { Notifier } from "#lib/core/notifier";
import type { Log, OneTimeMarks, Queue, TokenVault } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import type { BotClient } from "#lib/service/bot-client";
import type { UseCaseContext } from "../context";
import type { SyncMessage } from "../contracts";
import { queueNotice } from "../notice-queue";
import { mutateUser } from "../status/records";
import { type NoticeDeps, type NoticeOutcome, type NoticeRequest, runNotice } from "./notices";
import { ServiceNotifier } from "./service-notifier";
import { type SyncNowOutcome, syncNow } from "./sync-now";

/** Telling people (issue 26), as the handlers and workers reach it (App's `notify`). */
export interface NotifyParts {
  /** Looks at what the person is told (the transition worker's `notice` messages). */
  run(key: UserKey, req?: NoticeRequest): Promise<NoticeOutcome>;
  /** Asks the transition worker to run it (after a click, an `app_home_opened`). */
  queue(key: UserKey, opts?: { force?: boolean; delaySeconds?: number }): Promise<void>;
  /** Sync now: every calendar of the person read at once, at most once a minute. */
  syncNow(key: UserKey): Promise<SyncNowOutcome>;
  /** Keeps a team's bot token from an install (sealed; the last install's wins). */
  recordBot(team: string, token: string, botUser?: string): Promise<void>;
  /** Whether the team has a bot token: without one there is no Home tab and no message. */
  hasBot(team: string): Promise<boolean>;
  /** Turns the person's messages about what broke on or off. */
  setDms(key: UserKey, on: boolean): Promise<void>;
}

export interface NotifyPartsDeps {
  ctx: UseCaseContext;
  notices: NoticeStore;
  marks: OneTimeMarks;
  syncQueue: Queue<SyncMessage>;
  publicBaseUrl?: string;
  /** Where a calendar account of a kind is connected again (lib/app/accounts/providers.ts). */
  reconnectPath?: NoticeDeps["reconnectPath"];
  /** The Notifier as given (tests), else the service's over the bot client loaded on first use. */
  notifier?: Notifier;
  loadBot(): Promise<Pick<BotClient, "publishHome" | "postMessage">>;
}

/** Whose a team's bot token is, for its seal: the team, and no user. */
export const botTokenOwner = (team: string) => ({ team, user: "-", field: "bot_token" }) as const;

async function openBotToken(
  notices: NoticeStore,
  tokens: TokenVault,
  team: string,
): Promise<string | undefined> {
  const bot = await notices.teamBot(team);
  return bot === undefined ? undefined : tokens.open(bot.tokenSealed, botTokenOwner(team));
}

export function createNotifyParts(deps: NotifyPartsDeps): NotifyParts {
  const { ctx, notices } = deps;
  const clock: Clock = ctx.clock;
  const log: Log = ctx.log;
  const notifier =
    deps.notifier ??
    new ServiceNotifier({
      client: {
        publishHome: async (req) => (await deps.loadBot()).publishHome(req),
        postMessage: async (req) => (await deps.loadBot()).postMessage(req),
      },
      botToken: (team) => openBotToken(notices, ctx.tokens, team),
    });
  return {
    run: (key, req) =>
      runNotice(
        {
          store: ctx.store,
          notices,
          notifier,
          clock,
          log,
          ...(deps.publicBaseUrl !== undefined ? { publicBaseUrl: deps.publicBaseUrl } : {}),
          ...(deps.reconnectPath !== undefined ? { reconnectPath: deps.reconnectPath } : {}),
        },
        key,
        req,
      ),
    queue: (key, opts) => queueNotice(ctx.queue, clock, key, opts),
    syncNow: (key) =>
      syncNow({ store: ctx.store, marks: deps.marks, clock, syncQueue: deps.syncQueue }, key),
    recordBot: async (team, token, botUser) => {
      const tokenSealed = await ctx.tokens.seal(token, botTokenOwner(team));
      await notices.putTeamBot({
        team,
        tokenSealed,
        ...(botUser !== undefined ? { botUser } : {}),
        updatedAt: clock.now(),
      });
    },
    hasBot: async (team) => (await notices.teamBot(team)) !== undefined,
    setDms: async (key, on) => {
      await mutateUser(ctx, key, (u) => {
        if ((u.dmsOff === true) === !on) return undefined;
        const { dmsOff: _was, ...rest } = u;
        return on ? rest : { ...rest, dmsOff: true };
      });
    },
  };
}
