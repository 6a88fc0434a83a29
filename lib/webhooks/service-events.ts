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

/** `app_home_opened`: the person opened the app's Home (its `tab`: `home` or `messages`). */
export const appHomeOpenedEventSchema = z
  .object({
    type: z.literal("app_home_opened"),
    user: workspaceIdSchema,
    tab: z.enum(["home", "messages"]).optional(),
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

// The once-per-event gates live apart, so a worker can use one without this module's schemas.
export { EVERY_TIME, type EventOnce, RecentIds } from "./event-once";
