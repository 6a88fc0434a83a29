import type { Delivery, DirectMessage, HomeView, Notifier } from "#lib/core/notifier";
import type { UserKey } from "#lib/core/types";

/** The documented block limits the service holds a Home view and a message to. */
const MAX_HOME_BLOCKS = 100;
const MAX_MESSAGE_BLOCKS = 50;

/**
 * The Notifier in memory, for unit tests: what each person was shown and sent, under the same
 * contract as the service's (test/contract/notifier.contract.ts). Teams have a bot only once
 * given one (`addBot`); `revokeBot` makes the service refuse it, as a revoked token would.
 */
export class MemoryNotifier implements Notifier {
  readonly homes = new Map<string, HomeView>();
  readonly messages: Array<{ user: UserKey; message: DirectMessage }> = [];
  private readonly bots = new Map<string, "active" | "revoked">();

  addBot(team: string): void {
    this.bots.set(team, "active");
  }

  revokeBot(team: string): void {
    this.bots.set(team, "revoked");
  }

  homeOf(user: UserKey): HomeView | undefined {
    return this.homes.get(`${user.team}/${user.user}`);
  }

  messagesTo(user: UserKey): DirectMessage[] {
    return this.messages
      .filter((m) => m.user.team === user.team && m.user.user === user.user)
      .map((m) => m.message);
  }

  async publishHome(user: UserKey, view: HomeView): Promise<Delivery> {
    const refused = this.refusal(user, view.blocks.length > MAX_HOME_BLOCKS);
    if (refused !== undefined) return refused;
    this.homes.set(`${user.team}/${user.user}`, structuredClone(view));
    return { delivered: true };
  }

  async dm(user: UserKey, message: DirectMessage): Promise<Delivery> {
    const refused = this.refusal(user, (message.blocks?.length ?? 0) > MAX_MESSAGE_BLOCKS);
    if (refused !== undefined) return refused;
    this.messages.push({ user, message: structuredClone(message) });
    return { delivered: true };
  }

  private refusal(user: UserKey, tooManyBlocks: boolean): Delivery | undefined {
    const bot = this.bots.get(user.team);
    if (bot === undefined) return { delivered: false, reason: "no_bot_token" };
    if (bot === "revoked") return { delivered: false, reason: "refused", code: "token_revoked" };
    if (tooManyBlocks) return { delivered: false, reason: "refused", code: "invalid_arguments" };
    return undefined;
  }
}
