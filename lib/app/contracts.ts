import type { Block, UserChange, UserKey } from "../core/types";

/**
 * The use cases that handlers, the local stack, benchmarks and the soak call.
 * lib/app implements them over the store, the service client, the queue and the clock.
 */

/** A message on the transition queue: reconcile this user at (about) this instant. */
export interface TransitionMessage {
  team: string;
  user: string;
  /** The instant (epoch ms) the transition is due; the consumer reconciles at its own "now". */
  at: number;
  reason: "transition" | "retry" | "timeline" | "user_change" | "ooo";
  /**
   * A `user_change` acknowledged before it was recorded (the events endpoint's deadline passed):
   * the worker records it, idempotently by event_id, then reconciles.
   */
  change?: UserChange;
}

/** A message on the sync queue: re-fetch and re-expand one calendar source. */
export interface SyncMessage {
  team: string;
  user: string;
  sourceId: string;
  reason: "push" | "poll" | "manual";
}

export interface OutOfOfficeInput {
  start: number;
  end: number;
  text?: string;
  emoji?: string;
}

export interface OutOfOfficeEntry extends Required<OutOfOfficeInput> {
  id: string;
  createdAt: number;
}

export type ReconcileOutcome =
  | { kind: "set"; text: string; emoji: string; expiration: number }
  | { kind: "clear" }
  | { kind: "leave"; reason: string }
  | { kind: "nothing" }
  | { kind: "rescheduled"; at: number; code: string }
  | { kind: "needs_reauth"; code: string }
  | { kind: "conflict_retried_out" };

export interface TimelineMeta {
  sourceId: string;
  etag?: string;
  hash?: string;
}

export interface StatusUseCases {
  reconcileUser(key: UserKey): Promise<ReconcileOutcome>;
  /** Returns false when the event was a duplicate (by event_id) and nothing was done. */
  recordUserChange(change: UserChange): Promise<boolean>;
  applyTimeline(key: UserKey, blocks: Block[], meta: TimelineMeta): Promise<void>;
  /** Enqueues every transition due in the next 70 s; returns how many were enqueued. */
  tick(): Promise<number>;
  scheduleOutOfOffice(key: UserKey, input: OutOfOfficeInput): Promise<OutOfOfficeEntry>;
  listOutOfOffice(key: UserKey): Promise<OutOfOfficeEntry[]>;
  cancelOutOfOffice(key: UserKey, id: string): Promise<boolean>;
}

/** User administration for handlers, the CLI and the local stack (implemented by StatusPilot). */
export interface UserAdministration {
  upsertUser(
    input: import("./statuspilot").UpsertUserInput,
  ): Promise<import("./statuspilot").UserView>;
  getUser(key: UserKey): Promise<import("./statuspilot").UserView | undefined>;
  getStatusView(key: UserKey): Promise<import("./statuspilot").StatusView | undefined>;
  userZone(key: UserKey): Promise<string | undefined>;
  putChannel(
    channelId: string,
    binding: import("./statuspilot").ChannelBindingInput,
  ): Promise<void>;
  findChannel(channelId: string): Promise<import("./statuspilot").ChannelView | undefined>;
  /** Sources the poll run at `now` (epoch ms) re-syncs: each every 15 min, at a fixed phase. */
  sourcesDue(now: number): Promise<SyncMessage[]>;
  loadSource(
    key: UserKey,
    sourceId: string,
  ): Promise<import("./statuspilot").SourceView | undefined>;
  recordSourceSync(
    key: UserKey,
    sourceId: string,
    sync: { syncedAt: number; etag?: string; lastModified?: string; hash?: string },
  ): Promise<void>;
}
