import type * as z from "zod";
import {
  charLength,
  describeType,
  isPlainObject,
  type PathSegment,
  type Problem,
  toPointer,
} from "./problems";
import type { CustomFieldDef, ProfileContext, ProfileErrorCode } from "./profile/model";
import {
  EMOJI_FORM,
  isCalendarDate,
  PROFILE_LIMITS,
  profileSchema,
  USER_ID_FORM,
} from "./profile/schema";
import { STANDARD_EMOJI_NAMES } from "./standard-emoji.generated";

export { charLength } from "./problems";
export type { CustomFieldDef, ProfileContext, ProfileErrorCode } from "./profile/model";
export { PROFILE_LIMITS, type ProfileInput, profileSchema } from "./profile/schema";

/*
 * Validation of the `profile` of `users.profile.set` (spec 2.1, 7.1, 7.2, 8.2): the shape rules
 * of profile/schema.ts, then the rules that need the whole document or the workspace's context
 * (field counts, status clearing, enabled emoji, custom fields). The limits and the shape schema
 * live in profile/schema.ts, the types in profile/model.ts (erased when bundled). These rules stay
 * together: the functions load this schema lazily, and each module costs their bundles a wrapper.
 */

/** Present in a returned profile, but `users.profile.set` cannot set them. */
const IMAGE_FIELDS = new Set([
  "image_24",
  "image_32",
  "image_48",
  "image_72",
  "image_192",
  "image_512",
  "image_original",
  "avatar_hash",
]);
const READ_ONLY_FIELDS = new Set([
  "real_name_normalized",
  "display_name_normalized",
  "status_emoji_display_info",
  "huddle_state",
  "huddle_state_expiration_ts",
]);

/**
 * Whether `emoji` (":name:" or ":name::skin-tone-N:") is enabled for the team: every standard
 * emoji is, and custom ones when listed in `customEmoji`.
 */
export function isEmojiEnabled(emoji: string, customEmoji: string[] = []): boolean {
  const match = EMOJI_FORM.exec(emoji);
  const name = match?.[1];
  if (name === undefined) return false;
  if (STANDARD_EMOJI_NAMES.has(name)) return true;
  return customEmoji.some((custom) => custom.replace(/^:|:$/g, "") === name);
}

function problem(path: PathSegment[], message: string, code: ProfileErrorCode): Problem {
  return { message, pointer: toPointer(path), code };
}

function svcCodeOf(issue: z.core.$ZodIssue): ProfileErrorCode {
  if (issue.code === "custom") {
    const code: unknown = issue.params?.svcCode;
    if (typeof code === "string") return code as ProfileErrorCode;
  }
  return "invalid_arguments";
}

function messageOf(issue: z.core.$ZodIssue, value: unknown): string {
  const where = issue.path.length > 0 ? String(issue.path[issue.path.length - 1]) : "profile";
  switch (issue.code) {
    case "invalid_type":
      return `${where} must be ${issue.expected === "number" ? "an integer" : `a ${issue.expected}`}, not ${describeType(value)}`;
    case "invalid_union":
      return `${where} must be a string, or an array of strings for a tags field`;
    default:
      return issue.message;
  }
}

function unknownKeyMessage(key: string): string {
  if (IMAGE_FIELDS.has(key)) return `${key} cannot be set here; use users.setPhoto`;
  if (READ_ONLY_FIELDS.has(key)) return `${key} is read-only`;
  return `${key} is not a profile field that can be set`;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let current = root;
  for (const key of path) {
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function shapeProblems(profile: Record<string, unknown>): Problem[] {
  const result = profileSchema.safeParse(profile);
  if (result.success) return [];
  const problems: Problem[] = [];
  for (const issue of result.error.issues) {
    const path = issue.path.map((segment) =>
      typeof segment === "number" ? segment : String(segment),
    );
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        problems.push(problem([...path, key], unknownKeyMessage(key), "invalid_arguments"));
      }
      continue;
    }
    problems.push(problem(path, messageOf(issue, valueAt(profile, issue.path)), svcCodeOf(issue)));
  }
  return problems;
}

function countAndNameProblems(profile: Record<string, unknown>): Problem[] {
  const problems: Problem[] = [];
  const keys = Object.keys(profile);
  if (keys.length > PROFILE_LIMITS.fields) {
    problems.push(
      problem(
        [],
        `profile has ${keys.length} fields; at most ${PROFILE_LIMITS.fields} are allowed`,
        "invalid_arguments",
      ),
    );
  }
  const fieldIds = isPlainObject(profile.fields) ? Object.keys(profile.fields) : [];
  for (const [path, key] of [
    ...keys.map((key) => [[key], key] as const),
    ...fieldIds.map((key) => [["fields", key], key] as const),
  ]) {
    if (charLength(key) > PROFILE_LIMITS.fieldName) {
      problems.push(
        problem(
          [...path],
          `field name must be at most ${PROFILE_LIMITS.fieldName} characters`,
          "invalid_arguments",
        ),
      );
    }
  }
  return problems;
}

function statusProblems(profile: Record<string, unknown>, ctx: ProfileContext): Problem[] {
  const problems: Problem[] = [];
  const text = profile.status_text;
  const emoji = profile.status_emoji;
  if (typeof emoji === "string" && emoji !== "" && EMOJI_FORM.test(emoji)) {
    if (!isEmojiEnabled(emoji, ctx.customEmoji)) {
      problems.push(
        problem(
          ["status_emoji"],
          `${emoji} is not an emoji enabled for this team`,
          "invalid_emoji_not_allowed",
        ),
      );
    }
  }
  // A clear is both fields empty. The half clear is one field explicitly "" while the other is
  // given non-empty. A field left out is not part of the request: a lone non-empty field is a
  // text-only or emoji-only set, and a lone "" depends on the stored status, which only the
  // service knows (see emulator/README.md).
  const halfClear =
    typeof text === "string" && typeof emoji === "string" && (text === "") !== (emoji === "");
  if (halfClear) {
    const other = text === "" ? "status_emoji" : "status_text";
    problems.push(
      problem(
        [other],
        "clearing the status needs both status_text and status_emoji to be the empty string",
        "must_clear_both_status_text_and_status_emoji",
      ),
    );
  }
  return problems;
}

function isValidLink(value: string): boolean {
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(value) ? value : `https://${value}`;
  if (!URL.canParse(withScheme)) return false;
  const url = new URL(withScheme);
  if (url.protocol === "mailto:") return url.pathname.includes("@");
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname.includes(".");
}

/** Problems of one custom field value against its definition; [] when it fits. */
function customValueProblems(
  def: CustomFieldDef,
  value: unknown,
  path: PathSegment[],
  endUser: boolean,
): Problem[] {
  const fail = (message: string) => [problem(path, message, "invalid_arguments")];
  if (def.type === "tags") {
    if (!Array.isArray(value)) return fail(`a tags field's value must be an array of strings`);
    const problems: Problem[] = [];
    if (endUser && value.length > PROFILE_LIMITS.tagsPerFieldEndUser) {
      problems.push(
        problem(
          path,
          `at most ${PROFILE_LIMITS.tagsPerFieldEndUser} tags per field (got ${value.length})`,
          "invalid_arguments",
        ),
      );
    }
    const seen = new Set<string>();
    value.forEach((tag: unknown, i) => {
      if (typeof tag !== "string") return;
      if (tag === "" || charLength(tag) > PROFILE_LIMITS.tag) {
        problems.push(
          problem(
            [...path, i],
            `a tag must be 1 to ${PROFILE_LIMITS.tag} characters`,
            "invalid_arguments",
          ),
        );
      }
      if (seen.has(tag)) {
        problems.push(problem([...path, i], `duplicate tag "${tag}"`, "invalid_arguments"));
      }
      seen.add(tag);
    });
    return problems;
  }
  if (typeof value !== "string") return fail(`a ${def.type} field's value must be a string`);
  // The empty string clears a field of any type.
  if (value === "") return [];
  const length = charLength(value);
  switch (def.type) {
    case "date":
      return isCalendarDate(value) ? [] : fail("a date field's value must be a date YYYY-MM-DD");
    case "link":
      if (length > PROFILE_LIMITS.link) {
        return fail(`a link must be at most ${PROFILE_LIMITS.link} characters`);
      }
      return isValidLink(value) ? [] : fail("a link field's value must be a valid link");
    case "long_text":
      return length > PROFILE_LIMITS.longText
        ? fail(`a long_text value must be at most ${PROFILE_LIMITS.longText} characters`)
        : [];
    case "text":
      return length > PROFILE_LIMITS.text
        ? fail(`a text value must be at most ${PROFILE_LIMITS.text} characters`)
        : [];
    case "options_list": {
      const allowed = def.possible_values ?? [];
      return allowed.includes(value)
        ? []
        : fail(`value must be one of the field's possible values: ${allowed.join(", ")}`);
    }
    case "user": {
      const ids = value.split(",").map((id) => id.trim());
      if (ids.length > PROFILE_LIMITS.userIds) {
        return fail(`at most ${PROFILE_LIMITS.userIds} user IDs (got ${ids.length})`);
      }
      const bad = ids.find((id) => !USER_ID_FORM.test(id));
      return bad === undefined ? [] : fail(`"${bad}" is not a user ID`);
    }
  }
}

function customFieldProblems(profile: Record<string, unknown>, ctx: ProfileContext): Problem[] {
  const fields = profile.fields;
  if (!isPlainObject(fields) || ctx.fields === undefined) return [];
  const defs = new Map(ctx.fields.map((def) => [def.id, def]));
  const problems: Problem[] = [];
  for (const [id, entry] of Object.entries(fields)) {
    const def = defs.get(id);
    if (def === undefined) {
      problems.push(
        problem(["fields", id], `${id} is not a custom field of this team`, "invalid_arguments"),
      );
      continue;
    }
    if (!isPlainObject(entry) || entry.value === undefined) continue;
    problems.push(
      ...customValueProblems(def, entry.value, ["fields", id, "value"], ctx.endUser !== false),
    );
  }
  return problems;
}

/**
 * Every problem of a `users.profile.set` `profile` value ([] = valid). A string is parsed as
 * JSON first, as the form encoding sends it. Problems come in this order: the document itself,
 * field counts and names, shape and type rules, status rules, custom field rules; an emulator
 * answers with the first problem's `code`.
 */
export function validateProfile(profile: unknown, ctx: ProfileContext = {}): Problem[] {
  let document = profile;
  if (typeof profile === "string") {
    try {
      document = JSON.parse(profile);
    } catch (error: unknown) {
      const reason = error instanceof Error ? error.message : String(error);
      return [problem([], `profile is not valid JSON: ${reason}`, "invalid_profile")];
    }
  }
  if (!isPlainObject(document)) {
    return [
      problem(
        [],
        `profile must be a JSON object, not ${describeType(document)}`,
        "invalid_profile",
      ),
    ];
  }
  return [
    ...countAndNameProblems(document),
    ...shapeProblems(document),
    ...statusProblems(document, ctx),
    ...customFieldProblems(document, ctx),
  ];
}

const STANDARD_FIELD_NAMES = new Set(Object.keys(profileSchema.shape));

/**
 * The single `name` / `value` form of `users.profile.set`. `value` arrives as a string, so
 * `status_expiration` may be its decimal digits and a tags value its comma-separated tags.
 * Pointers refer to the equivalent `profile` object (e.g. "/status_text").
 */
export function validateProfileField(
  name: string,
  value: unknown,
  ctx: ProfileContext = {},
): Problem[] {
  if (charLength(name) > PROFILE_LIMITS.fieldName) {
    return [
      problem(
        [],
        `field name must be at most ${PROFILE_LIMITS.fieldName} characters`,
        "invalid_arguments",
      ),
    ];
  }
  const def = ctx.fields?.find((field) => field.id === name);
  const looksCustom = ctx.fields === undefined && /^X[A-Za-z0-9]+$/.test(name);
  if (def !== undefined || (looksCustom && !STANDARD_FIELD_NAMES.has(name))) {
    const fieldValue =
      def?.type === "tags" && typeof value === "string"
        ? value
            .split(",")
            .map((tag) => tag.trim())
            .filter((tag) => tag !== "")
        : value;
    return validateProfile({ fields: { [name]: { value: fieldValue } } }, ctx);
  }
  const coerced =
    name === "status_expiration" && typeof value === "string" && /^\d+$/.test(value)
      ? Number(value)
      : value;
  return validateProfile({ [name]: coerced }, ctx);
}
