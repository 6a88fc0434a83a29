/**
 * What the App Home extension keeps (beyond the spec): each person's last published Home view
 * per app, and the messages apps sent into their direct messages with people. Saved in and
 * restored from snapshots; response URLs and trigger ids are transient and are not.
 */
import * as z from "zod";

type Json = Record<string, unknown>;

/** The last `home` view an app published for a person. */
export interface HomeView {
  app: string;
  user: string;
  /** The view as the request sent it. */
  sent: Json;
  /** The view as stored and answered (ids, hash, generated block and action ids). */
  view: Json;
}

/** One message an app posted into its DM with a person. */
export interface DirectMessage {
  app: string;
  /** The DM's id (`D…`). */
  channel: string;
  /** The person the DM is with. */
  user: string;
  text: string;
  /** The blocks as sent; absent when the message had none. */
  blocks?: Json[];
  /** The blocks as stored (generated ids), for clicks. */
  storedBlocks?: Json[];
  ts: string;
  botUserId: string;
  botId: string;
}

/** How many messages one DM keeps; older ones are dropped. */
export const MESSAGES_KEPT_PER_DM = 1000;

const json = z.record(z.string(), z.unknown());

export const homeSnapshotSchema = z.object({
  views: z.array(
    z.object({
      app: z.string(),
      user: z.string(),
      sent: json,
      view: json,
    }) satisfies z.ZodType<HomeView>,
  ),
  messages: z.array(
    z.object({
      app: z.string(),
      channel: z.string(),
      user: z.string(),
      text: z.string(),
      blocks: z.array(json).optional(),
      storedBlocks: z.array(json).optional(),
      ts: z.string(),
      botUserId: z.string(),
      botId: z.string(),
    }),
  ),
  counters: z.object({ view: z.number().int().nonnegative(), ts: z.number().int().nonnegative() }),
});

export type HomeSnapshot = z.infer<typeof homeSnapshotSchema>;

export class HomeState {
  private readonly views = new Map<string, HomeView>();
  private readonly messages: DirectMessage[] = [];
  private viewSeq = 0;
  private tsSeq = 0;

  view(app: string, user: string): HomeView | undefined {
    return this.views.get(`${app}|${user}`);
  }

  /** Every person's last view, of any app, most recent publish last. */
  allViews(): HomeView[] {
    return [...this.views.values()];
  }

  setView(home: HomeView): void {
    const key = `${home.app}|${home.user}`;
    // Re-inserted, so that iteration order is the order of the last publishes.
    this.views.delete(key);
    this.views.set(key, home);
  }

  allMessages(): DirectMessage[] {
    return [...this.messages];
  }

  addMessage(message: DirectMessage): void {
    this.messages.push(message);
    const inDm = this.messages.filter((m) => m.channel === message.channel);
    if (inDm.length > MESSAGES_KEPT_PER_DM) {
      const oldest = inDm[0] as DirectMessage;
      this.messages.splice(this.messages.indexOf(oldest), 1);
    }
  }

  /** The message with `ts` in `channel`, for a response URL's replace or delete. */
  message(channel: string, ts: string): DirectMessage | undefined {
    return this.messages.find((m) => m.channel === channel && m.ts === ts);
  }

  /** Replaces a message in place (its ts and place in the DM stay). */
  replaceMessage(original: DirectMessage, replacement: DirectMessage): void {
    const i = this.messages.indexOf(original);
    if (i >= 0) this.messages[i] = replacement;
  }

  removeMessage(message: DirectMessage): void {
    const i = this.messages.indexOf(message);
    if (i >= 0) this.messages.splice(i, 1);
  }

  nextViewId(): string {
    this.viewSeq += 1;
    return `V${String(this.viewSeq).padStart(10, "0")}`;
  }

  /** A message timestamp `<epoch s>.<6 digits>`, unique across the emulator. */
  nextTs(nowMs: number): string {
    this.tsSeq += 1;
    return `${Math.floor(nowMs / 1000)}.${String(this.tsSeq % 1_000_000).padStart(6, "0")}`;
  }

  save(): HomeSnapshot {
    return structuredClone({
      views: [...this.views.values()],
      messages: this.messages,
      counters: { view: this.viewSeq, ts: this.tsSeq },
    });
  }

  restore(saved: HomeSnapshot): void {
    const copy = structuredClone(saved);
    this.views.clear();
    for (const v of copy.views) this.setView(v);
    this.messages.splice(0, this.messages.length, ...(copy.messages as DirectMessage[]));
    this.viewSeq = copy.counters.view;
    this.tsSeq = copy.counters.ts;
  }
}
