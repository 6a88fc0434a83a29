import * as z from "zod";
import { eventIdSchema, workspaceIdSchema } from "#lib/core/ids";
import type { UserChange } from "#lib/core/types";

/** Longest event or envelope `type` accepted; the reply echoes it when ignoring the event. */
export const MAX_TYPE_LENGTH = 64;
const typeSchema = z.string().min(1).max(MAX_TYPE_LENGTH);

/** `url_verification`: the service checks the request URL by asking us to echo the challenge. */
export const urlVerificationSchema = z.object({
  type: z.literal("url_verification"),
  challenge: z.string().min(1).max(1000),
});

const profileSchema = z
  .object({
    status_text: z.string().default(""),
    status_emoji: z.string().default(""),
    status_expiration: z.number().int().nonnegative().default(0),
  })
  .loose();

export const userChangeEventSchema = z
  .object({
    type: z.literal("user_change"),
    user: z
      .object({
        id: workspaceIdSchema,
        team_id: workspaceIdSchema.optional(),
        // IANA names are short; the longest is under 40 characters.
        tz: z.string().min(1).max(64).optional(),
        profile: profileSchema,
      })
      .loose(),
  })
  .loose();

/** `tokens_revoked`: the user (`oauth`) and bot tokens of the app the service revoked. */
export const tokensRevokedEventSchema = z
  .object({
    type: z.literal("tokens_revoked"),
    tokens: z
      .object({
        oauth: z.array(workspaceIdSchema).max(10_000).default([]),
        bot: z.array(workspaceIdSchema).max(10_000).default([]),
      })
      .loose(),
  })
  .loose();

export const eventCallbackSchema = z
  .object({
    type: z.literal("event_callback"),
    team_id: workspaceIdSchema,
    event_id: eventIdSchema,
    event_time: z.number().int().nonnegative(),
    event: z.object({ type: typeSchema }).loose(),
  })
  .loose();

/** Anything with a `type`: the envelope's own shape is checked once the type is known. */
export const envelopeSchema = z.object({ type: typeSchema }).loose();

/** Reduces a `user_change` callback to what reconciliation needs. */
export function toUserChange(
  envelope: z.infer<typeof eventCallbackSchema>,
  event: z.infer<typeof userChangeEventSchema>,
): UserChange {
  const { user } = event;
  return {
    eventId: envelope.event_id,
    eventTime: envelope.event_time,
    key: { team: user.team_id ?? envelope.team_id, user: user.id },
    ...(user.tz ? { tz: user.tz } : {}),
    status: {
      text: user.profile.status_text,
      emoji: user.profile.status_emoji,
      expiration: user.profile.status_expiration,
    },
  };
}

/**
 * Runs a piece of work at most once per event id. In production this is Powertools Idempotency
 * on our table (functions/shared/idempotency.ts), so it holds across Lambdas and retries.
 */
export interface EventOnce {
  /**
   * `fn`'s result when this call ran it; undefined when the id was already handled, or is being
   * handled right now. A throw from `fn` forgets the id, so a retry runs it again.
   */
  run<T>(eventId: string, fn: () => Promise<T>): Promise<{ value: T } | undefined>;
}

/** No gate: every delivery runs (handler tests, and apps without a table). */
export const EVERY_TIME: EventOnce = { run: async (_id, fn) => ({ value: await fn() }) };

/** An EventOnce within one process: remembers recent event ids (tests, local tools). */
export class RecentIds implements EventOnce {
  private readonly seen = new Map<string, number>();
  constructor(private readonly capacity = 5000) {}

  async run<T>(eventId: string, fn: () => Promise<T>): Promise<{ value: T } | undefined> {
    if (this.checkAndAdd(eventId, this.seen.size)) return undefined;
    try {
      return { value: await fn() };
    } catch (error: unknown) {
      this.forget(eventId);
      throw error;
    }
  }

  /** True when `id` was already seen; records it otherwise. */
  checkAndAdd(id: string, now: number): boolean {
    if (this.seen.has(id)) return true;
    this.seen.set(id, now);
    if (this.seen.size > this.capacity) {
      const oldest = this.seen.keys().next().value;
      if (oldest !== undefined) this.seen.delete(oldest);
    }
    return false;
  }

  forget(id: string): void {
    this.seen.delete(id);
  }
}
