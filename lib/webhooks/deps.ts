import type {
  OutOfOfficeEntry,
  OutOfOfficeInput,
  SyncMessage,
  TransitionMessage,
} from "#lib/app/contracts";
import type { NotifyParts } from "#lib/app/notify/parts";
import type { ChannelKind } from "#lib/calendar/providers/registry";
import type { Clock } from "#lib/core/clock";
import type { Log, Queue } from "#lib/core/ports";
import type { UserChange, UserKey } from "#lib/core/types";

/** Which hook a channel id belongs to: a provider with a push hook (the registry's). */
export type { ChannelKind };

/** A calendar push channel bound to one source (Google channel, Graph subscription, generic id). */
export interface ChannelBinding {
  team: string;
  user: string;
  sourceId: string;
  /**
   * The secret stored with the binding. Hooks no longer check it: pushes carry the channel token
   * derived from the id (lib/http/channel-token.ts), checked before the binding is read.
   */
  secret?: string;
  /**
   * The hook the channel was bound for. When present, a push through any other hook is refused
   * as an unknown channel; bindings stored without it are accepted by every hook.
   */
  kind?: ChannelKind;
}

/** The parts of the composition root the webhook use cases call (lib/app/compose/app's App has them). */
export interface WebhookDeps {
  clock: Clock;
  log: Log & { appendKeys(keys: Record<string, unknown>): void };
  /** The service's signing secret. */
  signingSecret(): Promise<string>;
  useCases: {
    /** False when nothing was recorded: a duplicate event_id, or a user we do not know. */
    recordUserChange(change: UserChange): Promise<boolean>;
    isNothingNew?(change: UserChange): Promise<"duplicate" | "echo" | undefined>;
    scheduleOutOfOffice(key: UserKey, input: OutOfOfficeInput): Promise<OutOfOfficeEntry>;
    listOutOfOffice(key: UserKey): Promise<OutOfOfficeEntry[]>;
    cancelOutOfOffice(key: UserKey, id: string): Promise<boolean>;
    /** `tokens_revoked`: stops the team's listed users; returns how many were known. */
    recordTokensRevoked(team: string, users: string[]): Promise<number>;
    /** `app_uninstalled`: stops every user of the team and schedules their data's deletion. */
    recordAppUninstalled(team: string): Promise<number>;
  };
  admin: {
    /** The hooks pass `openSecret: false`: they never use the secret, so it stays sealed. */
    findChannel(
      channelId: string,
      lookup?: { openSecret?: boolean },
    ): Promise<ChannelBinding | undefined>;
    /** The user's IANA zone; undefined when Statuspilot does not know the user. */
    userZone(key: UserKey): Promise<string | undefined>;
  };
  transitionQueue: Queue<TransitionMessage>;
  /** Coalescing enqueue of a re-sync; false when it joined one already queued. */
  requestSync(msg: SyncMessage): Promise<boolean>;
  /** Telling people (lib/app/notify): a Home tab opened is queued for the transition worker. */
  notify?: Pick<NotifyParts, "queue" | "syncNow">;
}
