import * as z from "zod";
import {
  defaultStatusKinds,
  rankKinds,
  STATUS_KINDS,
  type StatusKind,
  type StatusKindEntry,
  type StatusKindTable,
} from "./status-kinds";
import { truncateText } from "./text";
import type { Occurrence } from "./types";

/** What one kind of status shows, and the title keywords that select it. */
export interface KindRule {
  text: string;
  emoji: string;
  keywords: string[];
}

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
  /**
   * What becomes of a status the person set with no expiry: `keep` leaves it as an override
   * (blocks wait for it to go); `restore` shows blocks over it and sets it back after each.
   */
  standing: StandingMode;
};

/** How a status the person set with no expiry is treated (docs/reconcile.md). */
export type StandingMode = "keep" | "restore";

const defaultKindRule = (entry: StatusKindEntry): KindRule => ({
  text: entry.defaults.text,
  emoji: entry.defaults.emoji,
  keywords: [...entry.match.keywords],
});

/** The rules a user has without saying otherwise, for a table of kinds. */
export function defaultRulesFor<K extends string>(table: StatusKindTable<K>): UserRules<K> {
  const kinds = Object.fromEntries(table.map((e) => [e.kind, defaultKindRule(e)]));
  return Object.freeze({
    ...kinds,
    skipTentative: true,
    showTitles: false,
    bridgeGapMinutes: 0,
    standing: "keep",
  }) as UserRules<K>;
}

export const DEFAULT_RULES: UserRules = defaultRulesFor(STATUS_KINDS);

// Text and emoji are never empty: the service refuses a status with one of them empty (it reads
// as a half-made clear), so such a rule would fail on every transition.
const kindRuleInput = z
  .object({
    text: z
      .string()
      .trim()
      .min(1, "text must not be empty; a status needs both text and emoji")
      .max(100),
    emoji: z.string().regex(/^:[a-z0-9_+'-]+:$/, "emoji must be in colon form, e.g. :palm_tree:"),
    keywords: z.array(z.string().trim().min(1)).max(50),
  })
  .partial()
  .strict();

const isLocale = (value: string): boolean => {
  try {
    return Intl.getCanonicalLocales(value).length === 1;
  } catch {
    return false;
  }
};

type KindRuleInput = z.infer<typeof kindRuleInput>;

/**
 * Parses partial user rules (config files, the admin API) for a table of kinds and merges them
 * over that table's defaults. Absent rules (undefined or null) mean "all defaults".
 */
export function userRulesSchemaFor<K extends string>(table: StatusKindTable<K>) {
  const defaults = defaultRulesFor(table);
  const kindMembers = Object.fromEntries(table.map((e) => [e.kind, kindRuleInput.optional()]));
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
        standing: z.enum(["keep", "restore"]).optional(),
      })
      .strict()
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
          standing: input.standing ?? defaults.standing,
          ...(input.locale ? { locale: input.locale } : {}),
        } as UserRules<K>;
      }),
  );
}

/** The user rules of the kinds Statuspilot knows. */
export const userRulesSchema = userRulesSchemaFor(STATUS_KINDS);

export type Classification<K extends string = StatusKind> =
  | { kind: K; text: string; emoji: string }
  | { skip: string };

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Whole-word, case-insensitive match, so "ooo" matches "OOO - dentist" but not "foooo". */
export function matchesKeyword(title: string, keywords: string[]): boolean {
  return keywords.some((k) =>
    new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(k.trim())}($|[^\\p{L}\\p{N}])`, "iu").test(title),
  );
}

const PRIVATE_CLASSES = new Set(["PRIVATE", "CONFIDENTIAL"]);

/**
 * Decides the status kind of one occurrence, or why it sets none. Kinds are tried highest
 * priority first (ooo > focus > meeting): a native busy status or a title keyword selects a kind,
 * and the fallback kind takes the rest. An all-day event only counts for kinds that show all-day
 * events. The default table is the one Statuspilot knows; a test may pass an extended one.
 */
export function classify<K extends string = StatusKind>(
  o: Occurrence,
  rules: UserRules<K>,
  table: StatusKindTable<K> = defaultStatusKinds<K>(),
): Classification<K> {
  const { entries } = rankKinds(table);
  const status = o.status?.toUpperCase();
  const partstat = o.partstat?.toUpperCase();
  if (status === "CANCELLED") return { skip: "cancelled" };
  if (partstat === "DECLINED") return { skip: "declined by the user" };
  if (rules.skipTentative && (partstat === "TENTATIVE" || status === "TENTATIVE")) {
    return { skip: "tentative" };
  }
  const busyStatus = o.busyStatus?.toUpperCase() ?? "";
  const nativeKind = entries.find((e) => e.match.busyStatuses?.includes(busyStatus) === true);
  // An explicit busy status such as OOF outranks TRANSP; keywords do not (holiday feeds are free).
  if (o.transp?.toUpperCase() === "TRANSPARENT" && nativeKind === undefined) {
    return { skip: "transparent (shown as free)" };
  }
  if (busyStatus === "FREE" && nativeKind === undefined) {
    return { skip: "shown as free" };
  }
  const entry = entries.find(
    (e) =>
      (!o.allDay || e.match.allDay) &&
      (e === nativeKind ||
        e.match.fallback === true ||
        matchesKeyword(o.summary, rules[e.kind].keywords)),
  );
  if (entry === undefined) {
    const shown = entries.filter((e) => e.match.allDay).map((e) => e.label);
    return { skip: `all-day event that is not ${shown.join(" or ")}` };
  }
  const rule = rules[entry.kind];
  const mayShowTitle =
    rules.showTitles &&
    o.summary.trim() !== "" &&
    !PRIVATE_CLASSES.has(o.class?.toUpperCase() ?? "");
  const text = truncateText(mayShowTitle ? o.summary.trim() : rule.text);
  return { kind: entry.kind, text, emoji: rule.emoji };
}

/** The wall-clock parts of an instant in a zone (falls back to UTC for an unknown zone). */
function wallClock(
  ms: number,
  tz: string,
): { date: string; hour: number; minute: number; second: number } {
  let parts: Intl.DateTimeFormatPart[];
  const options: Intl.DateTimeFormatOptions = {
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
  };
  try {
    parts = new Intl.DateTimeFormat("en-GB", { ...options, timeZone: tz }).formatToParts(ms);
  } catch {
    parts = new Intl.DateTimeFormat("en-GB", { ...options, timeZone: "UTC" }).formatToParts(ms);
  }
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value;
  return {
    date: `${get("year")}-${get("month")}-${get("day")}`,
    hour: Number(get("hour")),
    minute: Number(get("minute")),
    second: Number(get("second")),
  };
}

const validZone = (tz: string): string => {
  try {
    new Intl.DateTimeFormat("en-GB", { timeZone: tz });
    return tz;
  } catch {
    return "UTC";
  }
};

/**
 * The "until" of an out-of-office, in the user's zone and locale. The end is exclusive.
 * - Ends at local midnight (a whole-day absence): the last day out, so a leave ending Saturday
 *   00:00 reads "Out of office until Fri, 27 Nov". This is the common convention of calendar
 *   auto-replies ("back on Monday" is the other one; we name the last day away).
 * - Ends at any other time on the day it is shown (`now`, in the user's zone): the time only,
 *   "Out of office until 15:30".
 * - Otherwise the day and time: "Out of office until Mon, 10 Mar 15:30".
 * Without `now` the same-day form is never chosen (backward compatible callers).
 */
export function outOfOfficeText(
  base: string,
  endMs: number,
  tz: string,
  locale?: string,
  now?: number,
): string {
  const zone = validZone(tz);
  const end = wallClock(endMs, zone);
  if (end.hour === 0 && end.minute === 0 && end.second === 0) {
    return truncateText(`${base} until ${formatDate(endMs - 1, zone, locale)}`);
  }
  const time = formatTime(endMs, zone, locale);
  if (now !== undefined && wallClock(now, zone).date === end.date) {
    return truncateText(`${base} until ${time}`);
  }
  return truncateText(`${base} until ${formatDate(endMs, zone, locale)} ${time}`);
}

function formatTime(ms: number, tz: string, locale?: string): string {
  return new Intl.DateTimeFormat(locale ?? "en-GB", {
    hour: "2-digit",
    minute: "2-digit",
    timeZone: tz,
    ...(locale ? {} : { hourCycle: "h23" as const }),
  }).format(ms);
}

function formatDate(ms: number, tz: string, locale?: string): string {
  if (locale) {
    return new Intl.DateTimeFormat(locale, {
      weekday: "short",
      day: "numeric",
      month: "short",
      timeZone: tz,
    }).format(ms);
  }
  const parts = new Intl.DateTimeFormat("en-GB", {
    weekday: "short",
    day: "numeric",
    month: "short",
    timeZone: tz,
  }).formatToParts(ms);
  const get = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value;
  return `${get("weekday")}, ${get("day")} ${get("month")}`;
}
