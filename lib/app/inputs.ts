import * as z from "zod";
import { type SourceAddressPolicy, sourceUrlProblem } from "#lib/calendar/source-rules";
import { sourceIdSchema } from "#lib/core/ids";
import { SOURCE_KINDS } from "#lib/core/source-kinds";
import { STATUS_TEXT_LIMIT } from "#lib/core/text";
import { InvalidInputError } from "./errors";

/**
 * The one schema of each use-case input. The HTTP handlers parse with these same field schemas
 * (or stricter wrappers of them), so a limit is stated once.
 */

/** The most calendars one person may add. */
export const MAX_CALENDARS = 20;

export const isZone = (tz: string): boolean => {
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};

const notBlank = (v: string): boolean => v.trim().length > 0;

/** An out-of-office text: the service's status text limit; given, it must not be blank. */
export const oooTextSchema = z
  .string()
  .max(STATUS_TEXT_LIMIT)
  // The service refuses half statuses, so given text and emoji must not be blank.
  .refine(notBlank, "text must not be empty");

/** An out-of-office emoji, in colon form. */
export const oooEmojiSchema = z
  .string()
  .regex(/^:[a-z0-9_+'-]+:$/, "emoji must be in colon form, e.g. :palm_tree:")
  .max(100);

export const oooInputSchema = z
  .object({
    start: z.number().int().nonnegative(),
    end: z.number().int().positive(),
    text: oooTextSchema.optional(),
    emoji: oooEmojiSchema.optional(),
  })
  .refine((v) => v.end > v.start, { message: "end must be after start", path: ["end"] });

/** A calendar source's kind (one line, so a provider registry's schema can replace it). */
const sourceKindSchema = z.enum(SOURCE_KINDS);

/** The same source rules as the admin API's, plus the address policy of where this runs. */
export const upsertUserSchemaFor = (policy: SourceAddressPolicy) =>
  z.object({
    key: z.object({ team: z.string().min(1), user: z.string().min(1) }),
    tz: z.string().refine(isZone, "tz must be an IANA time zone, e.g. Europe/Berlin"),
    token: z.string().min(1),
    // Token rotation: the refresh token and the access token's expiry (epoch ms), together.
    refreshToken: z.string().min(1).optional(),
    tokenExpiresAt: z.number().int().positive().optional(),
    adminTokenUser: z.string().min(1).optional(),
    emails: z.array(z.string()).optional(),
    sources: z.array(
      z.object({
        id: sourceIdSchema,
        url: z.string().superRefine((url, ctx) => {
          const problem = sourceUrlProblem(url, policy);
          if (problem !== undefined) ctx.addIssue({ code: "custom", message: problem });
        }),
        kind: sourceKindSchema,
        secret: z.string().min(1).optional(),
      }),
    ),
    rules: z.record(z.string(), z.unknown()).optional(),
    mode: z.enum(["auto", "paused"]),
  });

export const pointerOf = (path: PropertyKey[]): string => `/${path.map(String).join("/")}`;

/** Parses `input`, or throws InvalidInputError naming the first bad field (and every one). */
export function parseInput<T>(schema: z.ZodType<T>, input: unknown, prefix = ""): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => ({
    pointer: `${prefix}${pointerOf(issue.path)}`,
    message: issue.message,
  }));
  const first = problems[0] ?? { pointer: `${prefix}${pointerOf([])}`, message: "invalid input" };
  throw new InvalidInputError(first.message, first.pointer, { problems });
}
