/**
 * An independent reading of the `users.profile.set` rules (spec 2.1, 3, 7.2 and the 8.2 limits),
 * written from the spec's tables for the property test. It shares no code with lib/schema or the
 * emulator, so a wrong rule in either shows up as a disagreement with it.
 *
 * It judges only the values the property test generates: names come from an alphabet without
 * `.`, `:`, `/` and `@` plus a pool of hand-picked names, so the URL and `@` rules need to
 * recognise only the pool's spellings.
 *
 * Readings where the spec is silent (the project's documented choices):
 * - "Characters" are Unicode code points.
 * - A length or value rule without a code of its own answers `invalid_arguments`.
 * - The empty string clears a custom field of any type.
 * - The reserved name is compared case-insensitively, ignoring surrounding spaces.
 * - A call naming neither `status_text` nor `status_emoji` does not set the status, so it
 *   keeps the stored expiration (or moves it, when it names `status_expiration`).
 */

export interface OracleField {
  id: string;
  type: "date" | "link" | "long_text" | "options_list" | "tags" | "text" | "user";
  possibleValues?: string[];
}

export interface OracleStatus {
  text: string;
  emoji: string;
  expiration: number;
}

/** Spec 8.2, as its table reads. */
export const SPEC_LIMITS = {
  displayName: 80,
  realName: 50,
  statusText: 100,
  alt: 256,
  link: 256,
  text: 256,
  longText: 5000,
  tag: 50,
  tagsPerField: 75,
  userIds: 25,
} as const;

/** The platform's default for a status with text and no emoji (emulator/README.md). */
export const DEFAULT_EMOJI = ":speech_balloon:";

const codePoints = (s: string): number => [...s].length;

const hasUrl = (s: string): boolean =>
  /https?:\/\/|www\./i.test(s) || /[a-z0-9-]+\.(com|org|net|io|example)\b/i.test(s);

const isReserved = (s: string): boolean => s.trim().toLowerCase() === "slackbot";

function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.toISOString().slice(0, 10) === s;
}

export interface OracleContext {
  fields: OracleField[];
  /** Every emoji, in colon form, that the test's pool holds and the team has enabled. */
  enabledEmoji: ReadonlySet<string>;
  /** The status stored before the call; undefined judges the request alone (as the schema). */
  stored?: OracleStatus;
}

/** The codes the service may answer for `profile`: empty means it must be accepted. */
export function violations(profile: Record<string, unknown>, ctx: OracleContext): Set<string> {
  const codes = new Set<string>();
  const name = (value: unknown, max: number | undefined, reserved: "whole" | "ends" | "no") => {
    if (typeof value !== "string") return;
    if (max !== undefined && codePoints(value) > max) codes.add("invalid_arguments");
    if (value.startsWith("@")) codes.add("invalid_starts_with_at");
    if (hasUrl(value)) codes.add("name_not_allowed");
    const words = value.trim().split(/\s+/);
    if (reserved === "whole" && isReserved(value)) codes.add("reserved_name");
    if (reserved === "ends" && [words[0], words.at(-1)].some((w) => w && isReserved(w))) {
      codes.add("reserved_name");
    }
  };
  name(profile.display_name, SPEC_LIMITS.displayName, "no");
  name(profile.first_name, undefined, "whole");
  name(profile.last_name, undefined, "whole");
  name(profile.real_name, SPEC_LIMITS.realName, "ends");

  const text = profile.status_text;
  const emoji = profile.status_emoji;
  if (typeof text === "string" && codePoints(text) > SPEC_LIMITS.statusText) codes.add("too_long");
  if (typeof emoji === "string" && emoji !== "" && !ctx.enabledEmoji.has(emoji)) {
    codes.add("invalid_emoji_not_allowed");
  }
  // Spec 3: clearing needs both fields empty. A field left out keeps its stored value.
  const newText = typeof text === "string" ? text : ctx.stored?.text;
  const newEmoji = typeof emoji === "string" ? emoji : ctx.stored?.emoji;
  const clearing = text === "" || emoji === "";
  if (clearing && newText !== undefined && newEmoji !== undefined) {
    if ((newText === "") !== (newEmoji === "")) {
      codes.add("must_clear_both_status_text_and_status_emoji");
    }
  }
  const expiration = profile.status_expiration;
  if (expiration !== undefined && !(Number.isInteger(expiration) && Number(expiration) >= 0)) {
    codes.add("invalid_arguments");
  }
  if (typeof profile.start_date === "string" && profile.start_date !== "") {
    if (!isDate(profile.start_date)) codes.add("invalid_arguments");
  }

  const fields = (profile.fields ?? {}) as Record<string, { value?: unknown; alt?: unknown }>;
  for (const [id, entry] of Object.entries(fields)) {
    const def = ctx.fields.find((f) => f.id === id);
    if (!def) {
      codes.add("invalid_arguments");
      continue;
    }
    if (typeof entry.alt === "string" && codePoints(entry.alt) > SPEC_LIMITS.alt) {
      codes.add("invalid_arguments");
    }
    if (!valueFits(def, entry.value)) codes.add("invalid_arguments");
  }
  return codes;
}

function valueFits(def: OracleField, value: unknown): boolean {
  if (value === undefined) return true;
  if (def.type === "tags") {
    if (!Array.isArray(value)) return false;
    const tags = value as string[];
    return (
      tags.length <= SPEC_LIMITS.tagsPerField &&
      new Set(tags).size === tags.length &&
      tags.every((t) => codePoints(t) >= 1 && codePoints(t) <= SPEC_LIMITS.tag)
    );
  }
  if (typeof value !== "string") return false;
  if (value === "") return true;
  switch (def.type) {
    case "text":
      return codePoints(value) <= SPEC_LIMITS.text;
    case "long_text":
      return codePoints(value) <= SPEC_LIMITS.longText;
    case "link":
      return codePoints(value) <= SPEC_LIMITS.link && /^https:\/\/[a-z0-9-]+\.[a-z]/.test(value);
    case "date":
      return isDate(value);
    case "options_list":
      return (def.possibleValues ?? []).includes(value);
    case "user":
      return value.split(",").length <= SPEC_LIMITS.userIds;
  }
}

/** The stored status after an accepted call (spec 2.1 and 3, and the README's default emoji). */
export function applyStatus(stored: OracleStatus, profile: Record<string, unknown>): OracleStatus {
  const setsStatus = "status_text" in profile || "status_emoji" in profile;
  const next: OracleStatus = {
    text: typeof profile.status_text === "string" ? profile.status_text : stored.text,
    emoji: typeof profile.status_emoji === "string" ? profile.status_emoji : stored.emoji,
    // Spec 3: a status set with `status_expiration` 0 or omitted does not expire.
    expiration:
      typeof profile.status_expiration === "number"
        ? profile.status_expiration
        : setsStatus
          ? 0
          : stored.expiration,
  };
  if (next.text === "" && next.emoji === "") next.expiration = 0;
  if (next.text !== "" && next.emoji === "") next.emoji = DEFAULT_EMOJI;
  return next;
}

/** The stored status at `nowS`: an expiration that has passed has cleared it. */
export function expire(stored: OracleStatus, nowS: number): OracleStatus {
  return stored.expiration > 0 && stored.expiration <= nowS
    ? { text: "", emoji: "", expiration: 0 }
    : stored;
}
