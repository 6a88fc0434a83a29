import * as z from "zod";
import { charLength } from "../problems";
import type { ProfileErrorCode } from "./model";

/** The limits, forms and shape rules of a `users.profile.set` profile (spec 2.1, 8.2). */

export const PROFILE_LIMITS = {
  fields: 50,
  fieldName: 255,
  displayName: 80,
  realName: 50,
  statusText: 100,
  alt: 256,
  link: 256,
  text: 256,
  longText: 5000,
  tag: 50,
  tagsPerFieldEndUser: 75,
  userIds: 25,
} as const;

/** The platform's reserved bot name, in both spellings (the real platform writes `slackbot`). */
const RESERVED_NAMES = new Set(["slackbot", "svcbot"]);

// `:name:` with an optional `::skin-tone-N` suffix (written `:name::skin-tone-2:`).
export const EMOJI_FORM = /^:([a-z0-9_+'-]+):(?::skin-tone-([2-6]):)?$/;
const DATE_FORM = /^(\d{4})-(\d{2})-(\d{2})$/;
// Email: something, `@`, a dotted domain, and no whitespace anywhere.
const EMAIL_FORM = /^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/;
// A URL in a name: a scheme, `www.`, or a dotted host ending in a common top-level domain.
const URL_IN_NAME =
  /(?:[a-z][a-z0-9+.-]*:\/\/|\bwww\.|\b[a-z0-9-]+(?:\.[a-z0-9-]+)*\.(?:com|net|org|io|co|dev|app|ai|me|info|biz|xyz|gov|edu|ly|gg|us|uk|de|fr|ru|cn|jp)\b)/i;
export const USER_ID_FORM = /^[UW][A-Z0-9]{2,}$/;

/** Rule failure that carries the service code the emulator answers with. */
function failing(message: string, code: ProfileErrorCode) {
  return { message, params: { svcCode: code } };
}

function maxChars(max: number, what: string, code: ProfileErrorCode = "invalid_arguments") {
  return [
    (value: string) => charLength(value) <= max,
    failing(`${what} must be at most ${max} characters`, code),
  ] as const;
}

const startsWithAt = [
  (value: string) => !value.startsWith("@"),
  failing("a name must not start with @", "invalid_starts_with_at"),
] as const;

const noUrl = [
  (value: string) => !URL_IN_NAME.test(value),
  failing("a name must not contain a URL", "name_not_allowed"),
] as const;

const notReserved = [
  (value: string) => !RESERVED_NAMES.has(value.trim().toLowerCase()),
  failing("this name is reserved for the platform's bot", "reserved_name"),
] as const;

// Setting real_name sets first_name and last_name from its first and last words.
const realNameNotReserved = [
  (value: string) => {
    const words = value.trim().split(/\s+/);
    return !words.some((word, i) => {
      const isFirstOrLast = i === 0 || i === words.length - 1;
      return isFirstOrLast && RESERVED_NAMES.has(word.toLowerCase());
    });
  },
  failing("real_name would set a reserved first or last name", "reserved_name"),
] as const;

export function isCalendarDate(value: string): boolean {
  const match = DATE_FORM.exec(value);
  if (!match) return false;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const daysInMonth = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0;
  return day <= daysInMonth;
}

const nameString = () =>
  z
    .string()
    .refine(...startsWithAt)
    .refine(...noUrl);

const customFieldValueSchema = z.strictObject({
  value: z.union([z.string(), z.array(z.string())]).optional(),
  alt: z
    .string()
    .refine(...maxChars(PROFILE_LIMITS.alt, "alt"))
    .optional(),
});

/**
 * Shape and type rules of `users.profile.set`'s `profile` (spec 2.1, 8.2). Context rules (custom
 * field types, enabled emoji, clearing both status fields, field counts) are added by
 * validateProfile.
 */
export const profileSchema = z.strictObject({
  display_name: nameString()
    .refine(...maxChars(PROFILE_LIMITS.displayName, "display_name"))
    .optional(),
  email: z
    .string()
    .refine(
      (v) => EMAIL_FORM.test(v),
      failing("email must be an address with @ and a domain, and no spaces", "invalid_arguments"),
    )
    .optional(),
  first_name: nameString()
    .refine(...notReserved)
    .optional(),
  last_name: nameString()
    .refine(...notReserved)
    .optional(),
  phone: z.string().optional(),
  pronouns: z.string().optional(),
  real_name: nameString()
    .refine(...maxChars(PROFILE_LIMITS.realName, "real_name"))
    .refine(...realNameNotReserved)
    .optional(),
  start_date: z
    .string()
    .refine(
      (v) => v === "" || isCalendarDate(v),
      failing("start_date must be a date YYYY-MM-DD", "invalid_arguments"),
    )
    .optional(),
  title: z.string().optional(),
  skype: z
    .string()
    .refine((v) => v === "", failing("skype is always the empty string", "invalid_arguments"))
    .optional(),
  status_text: z
    .string()
    .refine(...maxChars(PROFILE_LIMITS.statusText, "status_text", "too_long"))
    .optional(),
  status_emoji: z
    .string()
    .refine(
      (v) => v === "" || EMOJI_FORM.test(v),
      failing("status_emoji must be written :name:", "invalid_emoji_not_allowed"),
    )
    .optional(),
  status_expiration: z
    .number()
    .refine(
      (v) => Number.isSafeInteger(v) && v >= 0,
      failing("status_expiration must be an integer Unix time >= 0", "invalid_arguments"),
    )
    .optional(),
  fields: z.record(z.string(), customFieldValueSchema).optional(),
});

export type ProfileInput = z.infer<typeof profileSchema>;
