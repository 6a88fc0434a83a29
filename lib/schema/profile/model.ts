/** The vocabulary of profile validation: field definitions, workspace context and error codes. */

/** A team's custom profile field, as `team.profile.get` describes it. */
export interface CustomFieldDef {
  id: string;
  label: string;
  type: "date" | "link" | "long_text" | "options_list" | "tags" | "text" | "user";
  possible_values?: string[];
  start_date?: boolean;
}

/** Workspace facts the shape rules cannot know. */
export interface ProfileContext {
  /** The team's custom fields; without them custom field values are checked for shape only. */
  fields?: CustomFieldDef[];
  /** Names of the team's custom emoji, with or without colons. */
  customEmoji?: string[];
  /** Default true: the 75-tags-per-field limit for end users applies. */
  endUser?: boolean;
}

/** Service error codes a profile problem maps to (spec 7.1 and 7.2). */
export type ProfileErrorCode =
  | "too_long"
  | "invalid_emoji_not_allowed"
  | "must_clear_both_status_text_and_status_emoji"
  | "reserved_name"
  | "invalid_starts_with_at"
  | "name_not_allowed"
  | "invalid_profile"
  | "invalid_arguments";
