import * as z from "zod";

/** The service answers `fields: []` (or null) for a profile with no custom fields. */
const customFields = z.preprocess(
  (v) => (v === null || Array.isArray(v) ? {} : v),
  z.record(
    z.string(),
    z.object({
      value: z.union([z.string(), z.array(z.string())]),
      alt: z.string().default(""),
    }),
  ),
);

const text = z.string().default("");

/** The full profile of spec 2.1, as `users.profile.set` and `users.profile.get` return it. */
export const profileSchema = z.looseObject({
  title: text,
  phone: text,
  skype: text,
  real_name: text,
  real_name_normalized: text,
  display_name: text,
  display_name_normalized: text,
  fields: customFields.default({}),
  status_text: text,
  status_emoji: text,
  status_emoji_display_info: z.array(z.unknown()).default([]),
  status_expiration: z.number().int().default(0),
  avatar_hash: text,
  start_date: z.string().optional(),
  email: z.string().optional(),
  pronouns: z.string().optional(),
  huddle_state: z.string().optional(),
  huddle_state_expiration_ts: z.number().int().optional(),
  first_name: text,
  last_name: text,
  image_24: z.string().optional(),
  image_32: z.string().optional(),
  image_48: z.string().optional(),
  image_72: z.string().optional(),
  image_192: z.string().optional(),
  image_512: z.string().optional(),
});

export type Profile = z.infer<typeof profileSchema>;

export const failureSchema = z.looseObject({
  ok: z.literal(false),
  error: z.string().min(1),
  errors: z.array(z.object({ message: z.string(), pointer: z.string() })).optional(),
});

export const profileResponseSchema = z.looseObject({ ok: z.literal(true), profile: profileSchema });

export const okSchema = z.looseObject({ ok: z.literal(true) });
