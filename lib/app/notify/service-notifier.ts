// lib/app/notify: telling people (issue 26): the Home tab, direct messages once per problem, the
// health each calendar shows, Sync now.
import type { Delivery, DirectMessage, HomeView, Notifier } from "#lib/core/notifier";
import { GatewayError } from "#lib/core/ports";
import type { UserKey } from "#lib/core/types";
import type { BotClient } from "#lib/service/bot-client";
import { ServiceError } from "#lib/service/errors";

export interface ServiceNotifierDeps {
  client: Pick<BotClient, "publishHome" | "postMessage">;
  /** The team's bot token in clear, or undefined when the team has none (an older install). */
  botToken(team: string): Promise<string | undefined>;
}

/**
 * The Notifier over the service's `views.publish` and `chat.postMessage`, as the team's bot.
 * What a retry may fix (unreachable, ratelimited, failing) is thrown as a retryable
 * GatewayError, so the queue tries again; a refusal for good is answered.
 */
export class ServiceNotifier implements Notifier {
  constructor(private readonly deps: ServiceNotifierDeps) {}

  publishHome(user: UserKey, view: HomeView): Promise<Delivery> {
    return this.deliver(user, (token) =>
      this.deps.client.publishHome({ token, user: user.user, blocks: view.blocks }),
    );
  }

  dm(user: UserKey, message: DirectMessage): Promise<Delivery> {
    return this.deliver(user, (token) =>
      this.deps.client.postMessage({
        token,
        user: user.user,
        text: message.text,
        ...(message.blocks !== undefined ? { blocks: message.blocks } : {}),
      }),
    );
  }

  private async deliver(
    user: UserKey,
    send: (token: string) => Promise<unknown>,
  ): Promise<Delivery> {
    const token = await this.deps.botToken(user.team);
    if (token === undefined) return { delivered: false, reason: "no_bot_token" };
    try {
      await send(token);
      return { delivered: true };
    } catch (error: unknown) {
      if (!(error instanceof ServiceError)) throw error;
      if (!error.retryable) return { delivered: false, reason: "refused", code: error.code };
      throw new GatewayError(error.message, error.code, true, false, error.retryAfterS, {
        cause: error,
      });
    }
  }
}
