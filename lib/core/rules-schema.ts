import * as z from "zod";
import { sourceIdSchema } from "./ids";
import {
  STATUS_KINDS,
  type StatusKind,
  type StatusKindEntry,
  type StatusKindTable,
} from "./status-kinds";
import { STATUS_TEXT_LIMIT } from "./text";

/**
 * The user rules: their types, their defaults, and the one schema that checks them (config
 * files, the admin API and the settings page all parse with it). docs/rules.md describes every
 * member for the people who write them.
 */

/** What one kind of status shows, the title keywords that select it, and Do Not Disturb. */
export interface KindRule {
  text: string;
  emoji: string;
  keywords: string[];
  /** While a block of this kind shows, the person is in Do Not Disturb. */
  dnd: boolean;
}

/**
 * One of the person's own statuses. An event matches it when every condition given holds (an
 * empty list is no condition): a keyword of the title, one of the calendars, and whether the
 * event has a video-call link. Of all the statuses an event matches, the highest priority wins.
 */
export interface CustomStatus {
  name: string;
  text: string;
  emoji: string;
  /** 1 to 99, on the built-in kinds' scale (out of office 30, focus 20, meeting 10). */
  priority: number;
  keywords: string[];
  /** Source ids. */
  calendars: string[];
  /** true: only events with a video-call link; false: only events without one. */
  online?: boolean;
  dnd: boolean;
}

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** The person's working hours, in their zone; outside them the status below shows. */
export interface WorkingHours {
  days: Weekday[];
  /** HH:MM, the wall-clock time the working day starts. */
  start: string;
  /** HH:MM; before `start` means the working day ends the next day (a night shift). */
  end: string;
  text: string;
  emoji: string;
  dnd: boolean;
}

/** What happens to a status the person set themselves when a block ends. */
export type Standing = "keep" | "restore";

/** One member per status kind (see status-kinds.ts), then the settings shared by all kinds. */
export type UserRules<K extends string = StatusKind> = { [Kind in K]: KindRule } & {
  /** Tentative events (the user's PARTSTAT or the event's STATUS) do not set a status. */
  skipTentative: boolean;
  /** Show event titles instead of the rule's text (never for PRIVATE/CONFIDENTIAL events). */
  showTitles: boolean;
  /** Gaps up to this many minutes between equal statuses are bridged into one block. */
  bridgeGapMinutes: number;
  /** BCP 47 locale for the "until" date; the default reads "Fri, 27 Nov". */
  locale?: string;
  /** The person's own statuses, at most MAX_CUSTOM_STATUSES. */
  custom: CustomStatus[];
  /** A meeting with nobody but the person in it sets no status. */
  skipNoGuests: boolean;
  /** Source ids whose events never set a status. */
  skipCalendars: string[];
  workingHours?: WorkingHours;
  standing: Standing;
};

export const MAX_CUSTOM_STATUSES = 20;
export const MAX_STATUS_NAME = 40;
export const MIN_CUSTOM_PRIORITY = 1;
export const MAX_CUSTOM_PRIORITY = 99;
/** Where the stretch outside working hours ranks: under every built-in kind. */
export const OFF_HOURS_PRIORITY = 5;
const MAX_KEYWORDS = 50;
const MAX_LISTED_CALENDARS = 20;

export const DEFAULT_OFF_HOURS = { text: "Off for the day", emoji: ":crescent_moon:" } as const;
const DEFAULT_WORKING_DAYS: Weekday[] = ["mon", "tue", "wed", "thu", "fri"];

const defaultKindRule = (entry: StatusKindEntry): KindRule => ({
  text: entry.defaults.text,
  emoji: entry.defaults.emoji,
  keywords: [...entry.match.keywords],
  dnd: false,
});

/** The rules a user has without saying otherwise, for a table of kinds. */
export function defaultRulesFor<K extends string>(table: StatusKindTable<K>): UserRules<K> {
  const kinds = Object.fromEntries(table.map((e) => [e.kind, defaultKindRule(e)]));
  return Object.freeze({
    ...kinds,
    skipTentative: true,
    showTitles: false,
    bridgeGapMinutes: 0,
    custom: [],
    skipNoGuests: false,
    skipCalendars: [],
    standing: "keep",
  }) as unknown as UserRules<K>;
}

export const DEFAULT_RULES: UserRules = defaultRulesFor(STATUS_KINDS);

// Text and emoji are never empty: the service refuses a status with one of them empty (it reads
// as a half-made clear), so such a rule would fail on every transition.
const textSchema = z
  .string()
  .trim()
  .min(1, "text must not be empty; a status needs both text and emoji")
  .max(STATUS_TEXT_LIMIT, `text must be at most ${STATUS_TEXT_LIMIT} characters`);
const emojiSchema = z
  .string()
  .regex(/^:[a-z0-9_+'-]+:$/, "emoji must be in colon form, e.g. :palm_tree:");
const keywordsSchema = z
  .array(z.string().trim().min(1, "a keyword must not be empty"))
  .max(MAX_KEYWORDS, `at most ${MAX_KEYWORDS} keywords`);
const calendarsSchema = z
  .array(sourceIdSchema)
  .max(MAX_LISTED_CALENDARS, `at most ${MAX_LISTED_CALENDARS} calendars`);
const dndSchema = z.boolean("dnd must be true or false");

const kindRuleInput = z
  .object({ text: textSchema, emoji: emojiSchema, keywords: keywordsSchema, dnd: dndSchema })
  .partial()
  .strict();

const PRIORITY_WORDS = `priority must be a whole number from ${MIN_CUSTOM_PRIORITY} to ${MAX_CUSTOM_PRIORITY}`;

const customStatusInput = z
  .object({
    name: z
      .string("name must be text")
      .trim()
      .min(1, "name must not be empty")
      .max(MAX_STATUS_NAME, `name must be at most ${MAX_STATUS_NAME} characters`),
    text: textSchema,
    emoji: emojiSchema,
    priority: z
      .number(PRIORITY_WORDS)
      .int(PRIORITY_WORDS)
      .min(MIN_CUSTOM_PRIORITY, PRIORITY_WORDS)
      .max(MAX_CUSTOM_PRIORITY, PRIORITY_WORDS),
    keywords: keywordsSchema.optional(),
    calendars: calendarsSchema.optional(),
    online: z.boolean("online must be true or false").optional(),
    dnd: dndSchema.optional(),
  })
  .strict();

const customListInput = z
  .array(customStatusInput)
  .max(MAX_CUSTOM_STATUSES, `at most ${MAX_CUSTOM_STATUSES} custom statuses`)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((c, i) => {
      const key = c.name.toLowerCase();
      if (seen.has(key)) {
        ctx.addIssue({
          code: "custom",
          path: [i, "name"],
          message: `name "${c.name}" is taken; each custom status needs its own name`,
        });
      }
      seen.add(key);
    });
  });

const clockTime = z
  .string("must be a time of day as HH:MM, e.g. 09:00")
  .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "must be a time of day as HH:MM, e.g. 09:00");

const workingHoursInput = z
  .object({
    days: z
      .array(z.enum(WEEKDAYS, `days are ${WEEKDAYS.join(", ")}`))
      .min(1, "name at least one working day")
      .refine((d) => new Set(d).size === d.length, "a day is named twice")
      .optional(),
    start: clockTime,
    end: clockTime,
    text: textSchema.optional(),
    emoji: emojiSchema.optional(),
    dnd: dndSchema.optional(),
  })
  .strict()
  .refine((w) => w.start !== w.end, {
    path: ["end"],
    message: "end must differ from start (a working day of 0 or 24 hours needs no working hours)",
  });

const isLocale = (value: string): boolean => {
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
};

type KindRuleInput = z.infer<typeof kindRuleInput>;
type CustomStatusInput = z.infer<typeof customStatusInput>;
type WorkingHoursInput = z.infer<typeof workingHoursInput>;

const customOf = (c: CustomStatusInput): CustomStatus => ({
  name: c.name,
  text: c.text,
  emoji: c.emoji,
  priority: c.priority,
  keywords: c.keywords ?? [],
  calendars: c.calendars ?? [],
  ...(c.online !== undefined ? { online: c.online } : {}),
  dnd: c.dnd ?? false,
});

const workingHoursOf = (w: WorkingHoursInput): WorkingHours => ({
  days: w.days ?? [...DEFAULT_WORKING_DAYS],
  start: w.start,
  end: w.end,
  text: w.text ?? DEFAULT_OFF_HOURS.text,
  emoji: w.emoji ?? DEFAULT_OFF_HOURS.emoji,
  dnd: w.dnd ?? false,
});

/** What the schema checks besides the limits: the calendars the person has. */
export interface RulesContext {
  /**
   * The person's source ids: `calendars` and `skipCalendars` may name no other. Without it,
   * any id is accepted (stored rules are read this way: a calendar removed later matches nothing).
   */
  calendars?: readonly string[];
}

/**
 * Parses partial user rules (config files, the admin API, the settings page) for a table of
 * kinds and merges them over that table's defaults. Absent rules (undefined or null) mean "all
 * defaults". Parsed rules parse again to themselves, so a page may send back what it read.
 */
export function userRulesSchemaFor<K extends string>(
  table: StatusKindTable<K>,
  context: RulesContext = {},
) {
  const defaults = defaultRulesFor(table);
  const kindMembers = Object.fromEntries(table.map((e) => [e.kind, kindRuleInput.optional()]));
  const known = context.calendars === undefined ? undefined : new Set(context.calendars);
  return z.preprocess(
    (value) => value ?? {},
    z
      .object({
        ...kindMembers,
        skipTentative: z.boolean().optional(),
        showTitles: z.boolean().optional(),
        bridgeGapMinutes: z
          .number()
          .int()
          .min(0)
          .max(24 * 60)
          .optional(),
        locale: z.string().refine(isLocale, "locale must be a BCP 47 tag, e.g. en-GB").optional(),
        custom: customListInput.optional(),
        skipNoGuests: z.boolean("skipNoGuests must be true or false").optional(),
        skipCalendars: calendarsSchema.optional(),
        workingHours: workingHoursInput.optional(),
        standing: z.enum(["keep", "restore"], 'standing must be "keep" or "restore"').optional(),
      })
      .strict()
      .superRefine((input, ctx) => {
        if (known === undefined) return;
        const check = (ids: readonly string[] | undefined, path: (string | number)[]) => {
          for (const [j, id] of (ids ?? []).entries()) {
            if (known.has(id)) continue;
            const have = known.size === 0 ? "none" : [...known].join(", ");
            ctx.addIssue({
              code: "custom",
              path: [...path, j],
              message: `no calendar "${id}"; this person's calendars are: ${have}`,
            });
          }
        };
        for (const [i, c] of (input.custom ?? []).entries()) {
          check(c.calendars, ["custom", i, "calendars"]);
        }
        check(input.skipCalendars, ["skipCalendars"]);
      })
      .transform((input): UserRules<K> => {
        const given = input as Record<string, KindRuleInput | undefined>;
        const kinds = Object.fromEntries(
          table.map((e) => [e.kind, { ...defaults[e.kind], ...given[e.kind] }]),
        );
        return {
          ...kinds,
          skipTentative: input.skipTentative ?? defaults.skipTentative,
          showTitles: input.showTitles ?? defaults.showTitles,
          bridgeGapMinutes: input.bridgeGapMinutes ?? defaults.bridgeGapMinutes,
          ...(input.locale ? { locale: input.locale } : {}),
          custom: (input.custom ?? []).map(customOf),
          skipNoGuests: input.skipNoGuests ?? defaults.skipNoGuests,
          skipCalendars: input.skipCalendars ?? [],
          ...(input.workingHours ? { workingHours: workingHoursOf(input.workingHours) } : {}),
          standing: input.standing ?? defaults.standing,
        } as unknown as UserRules<K>;
      }),
  );
}

/** The user rules of the kinds Statuspilot knows. */
export const userRulesSchema = userRulesSchemaFor(STATUS_KINDS);

/** The same, also refusing a calendar the person does not have. */
export const userRulesSchemaKnowing = (calendars: readonly string[]) =>
  userRulesSchemaFor(STATUS_KINDS, { calendars });
