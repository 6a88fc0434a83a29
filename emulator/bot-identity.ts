/**
 * Who an app is when it speaks (the App Home extension): its bot user and bot id, the DM it has
 * with each person, and the check that a call carries a bot token of an app.
 */
import { createHash } from "node:crypto";
import { authenticate, type CallContext, fail, type MethodResult } from "./methods";
import type { AppState, EmulatorModel } from "./model";
import type { WorkspaceToken } from "./workspace";

const idPart = (seed: string): string =>
  createHash("sha256").update(seed).digest("hex").slice(0, 10).toUpperCase();

export interface BotIdentity {
  /** The bot's user id (`bot_user_id`, a message's `user`). */
  botUserId: string;
  /** The bot's id (`bot_id`). */
  botId: string;
}

/**
 * The app's bot: the user of a bot token the workspace file (or an install) gave the app, else
 * an id derived from the app's, stable across runs.
 */
export function botIdentity(model: EmulatorModel, appId: string): BotIdentity {
  const botId = `B${idPart(`bot:${appId}`)}`;
  for (const token of model.tokens.values()) {
    if (token.type === "bot" && token.app === appId) return { botUserId: token.user, botId };
  }
  return { botUserId: `U${idPart(`bot-user:${appId}`)}`, botId };
}

/** The id (`D…`) of the direct message between an app and a person, stable across runs. */
export const dmChannelId = (appId: string, user: string): string =>
  `D${idPart(`dm:${appId}:${user}`)}`;

/** A person (not a bot) of the workspace, by the id a `channel` or `user_id` argument names. */
export function personNamed(model: EmulatorModel, id: string | undefined): string | undefined {
  const user = id === undefined ? undefined : model.users.get(id);
  return user && user.is_bot !== true ? user.id : undefined;
}

export type BotAuth =
  | { ok: true; token: WorkspaceToken; app: AppState }
  | { ok: false; result: MethodResult };

/**
 * Section 5's checks for a method only an app's bot calls. A bot token the workspace file gives
 * no `app` cannot say which app publishes or posts: `not_allowed_token_type`.
 */
export function authenticateBot(ctx: CallContext, scope: string | undefined): BotAuth {
  const auth = authenticate(ctx, ["bot"], scope);
  if (!auth.ok) return auth;
  const app = auth.token.app === undefined ? undefined : ctx.model.apps.get(auth.token.app);
  if (!app)
    return { ok: false, result: { ...fail("not_allowed_token_type"), caller: auth.token.user } };
  return { ok: true, token: auth.token, app };
}
