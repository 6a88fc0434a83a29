/**
 * The bot token of an install that asked for bot scopes (`scope=` on the authorize URL), as the
 * platform's `oauth.v2.access` documents it: `access_token` (`xoxb-…`), `token_type: "bot"`,
 * `scope`, `bot_user_id` at the top level of the answer, beside `authed_user`.
 */
import { botIdentity } from "./bot-identity";
import type { EmulatorModel } from "./model";
import type { OAuthGrants } from "./oauth-grants";
import { ROTATING_TOKEN_LIFETIME_S } from "./oauth-grants";

export interface BotTokenIssue {
  accessToken: string;
  refreshToken?: string;
  scopes: string[];
  botUserId: string;
}

/**
 * The app's bot token with `scopes` added. Without token rotation the app keeps one bot token
 * (an install again extends its scopes); with rotation each install issues a new one that
 * expires like a user token, with its own refresh token.
 */
export function issueBotToken(args: {
  model: EmulatorModel;
  grants: OAuthGrants;
  appId: string;
  scopes: string[];
  rotating: boolean;
  now: number;
}): BotTokenIssue {
  const { model, appId } = args;
  const { botUserId } = botIdentity(model, appId);
  const held = [...model.tokens.values()].filter(
    (t) => t.type === "bot" && t.app === appId && t.state === "active",
  );
  const scopes = [...new Set([...held.flatMap((t) => t.scopes), ...args.scopes])];
  const kept = held.find((t) => t.expires_at === undefined);
  if (!args.rotating && kept) {
    kept.scopes = scopes;
    return { accessToken: kept.token, scopes, botUserId: kept.user };
  }
  const issued = args.grants.issue(
    { appId, user: botUserId, scopes, bot: true },
    args.rotating,
    args.now,
  );
  return { ...issued, scopes, botUserId };
}

/** The top-level members of an `oauth.v2.access` answer that carry the bot token. */
export function botTokenFields(bot: BotTokenIssue): Record<string, unknown> {
  return {
    access_token: bot.accessToken,
    token_type: "bot",
    scope: bot.scopes.join(","),
    bot_user_id: bot.botUserId,
    ...(bot.refreshToken === undefined
      ? {}
      : { refresh_token: bot.refreshToken, expires_in: ROTATING_TOKEN_LIFETIME_S }),
  };
}
