import type { UserKey } from "./types";

/**
 * Telling people (issue 26): one outbound port for the app's Home tab and its direct messages,
 * both sent as the app's bot. The service adapter is lib/app/notify/service-notifier.ts; the
 * in-memory one lib/app/notify/memory-notifier.ts; both pass test/contract/notifier.contract.ts.
 */

/** One Block Kit block, as the service's documentation shapes it. */
export type ViewBlock = Readonly<Record<string, unknown>>;

/** The Home tab's view: its blocks (the adapter makes it a `home` view). */
export interface HomeView {
  blocks: readonly ViewBlock[];
}

/** A direct message: the text every client shows (and notifications read), and its blocks. */
export interface DirectMessage {
  text: string;
  blocks?: readonly ViewBlock[];
}

/**
 * What became of a publish or a message, when no retry can change it: delivered; or not, because
 * the team has no bot token (installed before the bot was asked for), or because the service
 * refused it for good (`code`: a revoked token, a view it will not take).
 */
export type Delivery =
  | { delivered: true }
  | { delivered: false; reason: "no_bot_token" | "refused"; code?: string };

export interface Notifier {
  /** Replaces the person's Home tab with `view`. */
  publishHome(user: UserKey, view: HomeView): Promise<Delivery>;
  /** Sends `message` into the app's direct messages with the person. */
  dm(user: UserKey, message: DirectMessage): Promise<Delivery>;
}
