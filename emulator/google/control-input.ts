import * as z from "zod";

/**
 * The shapes the control surface accepts over HTTP, checked before anything changes, so that a
 * malformed request answers 400 with a JSON pointer rather than failing halfway.
 */

export const UserIn = z
  .object({
    id: z.string().min(1).optional(),
    email: z.string().min(3),
    name: z.string().optional(),
    timeZone: z.string().optional(),
  })
  .strict();

export const ClientIn = z
  .object({
    clientId: z.string().min(1),
    clientSecret: z.string().min(1),
    redirectUris: z.array(z.string().refine((u) => URL.canParse(u), "not an absolute URL")),
  })
  .strict();

export const FaultsIn = z
  .object({
    rateLimit: z
      .object({
        status: z.union([z.literal(403), z.literal(429)]),
        reason: z.enum(["rateLimitExceeded", "userRateLimitExceeded"]).optional(),
        times: z.number().int().positive().optional(),
        retryAfterS: z.number().int().nonnegative().optional(),
        rate: z.number().min(0).max(1).optional(),
        seed: z.number().int().optional(),
      })
      .strict()
      .nullable()
      .optional(),
    expireSyncTokens: z.object({ calendar: z.string().optional() }).strict().optional(),
    silenceChannel: z.object({ id: z.string() }).strict().optional(),
    invalidGrant: z.object({ user: z.string() }).strict().optional(),
    expireAccessTokens: z.object({ user: z.string().optional() }).strict().optional(),
  })
  .strict();

export const ConsentIn = z.object({ autoApprove: z.string().nullable() }).strict();
export const ClockIn = z.object({ now: z.number().nullable() }).strict();
/** The longest channel lifetime granted (seconds); null: back to the default. */
export const GrantedLifetimeIn = z
  .object({ maxS: z.number().int().positive().nullable() })
  .strict();

/** The body as the schema's type, or the first problem's message and JSON pointer. */
export function readInput<T>(
  schema: z.ZodType<T>,
  raw: unknown,
): { ok: true; value: T } | { ok: false; message: string; pointer: string } {
  const r = schema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0];
  return {
    ok: false,
    message: issue?.message ?? "invalid request",
    pointer: `/${(issue?.path ?? []).map(String).join("/")}`,
  };
}
