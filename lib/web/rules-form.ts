import { type UserRules, WEEKDAYS } from "#lib/core/rules";
import {
  FIELDS,
  listItemField,
  ruleField,
  ruleFieldOfPointer,
  STATUS_KINDS,
} from "./pages/view-model";

/**
 * The settings page's rules form, read back into rules for the rules schema to check. Nothing
 * is checked here: a value the schema refuses (a priority that is not a number, an emoji not in
 * colon form) is passed on as typed, so its error names the field it came from. What the form
 * does not show (the locale, bridged gaps) is kept from the stored rules.
 *
 * Lists of checkboxes are one field each, named `<list>_<value>` (`skip_calendars_ics-1`,
 * `working_hours_days_mon`), and each list also sends an empty hidden field named after the list
 * itself, so an error about the list has a field to stand beside.
 */

/** How many custom-status rows the form is read for, at most (the stored ones and one new). */
const MAX_ROWS = 64;

const ticked = (form: URLSearchParams, name: string): boolean => form.get(name) === "on";
const text = (form: URLSearchParams, name: string): string => form.get(name) ?? "";
const lines = (value: string): string[] =>
  value
    .split(/\r?\n/)
    .map((k) => k.trim())
    .filter((k) => k.length > 0);
const tickedOf = (form: URLSearchParams, list: string, values: readonly string[]): string[] =>
  values.filter((v) => ticked(form, listItemField(list, v)));

/** A whole number as typed becomes a number; anything else stays as typed, for the schema. */
const numberOf = (typed: string): number | string =>
  /^\s*[+-]?\d{1,6}\s*$/.test(typed) ? Number(typed) : typed.trim();

const ONLINE = { yes: true, no: false } as const;

/** The custom-status rows the form sent, in order: their row numbers and what each holds. */
function customRows(form: URLSearchParams, calendars: readonly string[]) {
  const rows: { row: number; status: Record<string, unknown> }[] = [];
  for (let row = 0; row < MAX_ROWS && form.has(FIELDS.custom(row, "name")); row++) {
    if (ticked(form, FIELDS.customDelete(row))) continue;
    const field = (member: Parameters<typeof FIELDS.custom>[1]) =>
      text(form, FIELDS.custom(row, member));
    const keywords = lines(field("keywords"));
    const chosen = tickedOf(form, FIELDS.custom(row, "calendars"), calendars);
    const online = field("online");
    // A row left blank (the new one, or one emptied) adds nothing.
    const typed = [field("name"), field("text"), field("emoji")].some((v) => v.trim() !== "");
    if (!typed && keywords.length === 0 && chosen.length === 0) continue;
    rows.push({
      row,
      status: {
        name: field("name"),
        text: field("text"),
        emoji: field("emoji").trim(),
        priority: numberOf(field("priority")),
        keywords,
        calendars: chosen,
        ...(online === "yes" || online === "no" ? { online: ONLINE[online] } : {}),
        dnd: ticked(form, FIELDS.custom(row, "dnd")),
      },
    });
  }
  return rows;
}

/** The rules the form sent, over what is stored; `calendars`: the person's source ids. */
export function rulesFromForm(
  form: URLSearchParams,
  stored: UserRules,
  calendars: readonly string[],
): Record<string, unknown> {
  const kinds = Object.fromEntries(
    STATUS_KINDS.map((kind) => [
      kind,
      {
        text: text(form, FIELDS.ruleText(kind)),
        emoji: text(form, FIELDS.ruleEmoji(kind)),
        keywords: lines(text(form, FIELDS.ruleKeywords(kind))),
        dnd: ticked(form, FIELDS.ruleDnd(kind)),
      },
    ]),
  );
  const hours = (member: Parameters<typeof FIELDS.workingHoursMember>[0]) =>
    text(form, FIELDS.workingHoursMember(member));
  const { workingHours: _stored, ...kept } = stored;
  return {
    ...kept,
    ...kinds,
    showTitles: ticked(form, FIELDS.showTitles),
    skipTentative: ticked(form, FIELDS.skipTentative),
    skipNoGuests: ticked(form, FIELDS.skipNoGuests),
    skipCalendars: tickedOf(form, FIELDS.skipCalendars, calendars),
    custom: customRows(form, calendars).map((r) => r.status),
    standing: text(form, FIELDS.standing) || stored.standing,
    ...(ticked(form, FIELDS.workingHours)
      ? {
          workingHours: {
            days: tickedOf(form, FIELDS.workingHoursMember("days"), WEEKDAYS),
            start: hours("start").trim(),
            end: hours("end").trim(),
            text: hours("text"),
            emoji: hours("emoji").trim(),
            dnd: ticked(form, FIELDS.workingHoursMember("dnd")),
          },
        }
      : {}),
  };
}

/**
 * The form field a refused rule's JSON pointer names, in the form as it was sent: a custom
 * status's index in the rules is its row among the rows not deleted or blank.
 */
export function rulesFieldOf(
  pointer: string,
  form: URLSearchParams,
  calendars: readonly string[],
): string | undefined {
  const custom = /^\/rules\/custom\/(\d+)(\/.*)?$/.exec(pointer);
  if (custom === null) return ruleFieldOfPointer(pointer, "/rules");
  const row = customRows(form, calendars)[Number(custom[1])]?.row;
  if (row === undefined) return ruleField("custom");
  // Within the row, the member's field as for any pointer (`/rules/x/keywords/0` → `x_keywords`).
  const member = ruleFieldOfPointer(`/rules/x${custom[2] ?? ""}`, "/rules")?.slice(2);
  return member ? ruleField("custom", row, member) : ruleField("custom", row, "name");
}
