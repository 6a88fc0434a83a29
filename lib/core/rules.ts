import * as z from "zod";
import { truncateText } from "./text";
import type { Occurrence, StatusKind } from "./types";

/** What one kind of status shows, and the title keywords that select it. */
export interface KindRule {
  text: string;
  emoji: string;
  keywords: string[];
}

export interface UserRules {
  ooo: KindRule;
  focus: KindRule;
  meeting: KindRule;
  /** Tentative events (the user's PARTSTAT or the event's STATUS) do not set a status. */
  skipTentative: boolean;
  /** Show event titles instead of the rule's text (never for PRIVATE/CONFIDENTIAL events). */
  showTitles: boolean;
  /** Gaps up to this many minutes between equal statuses are bridged into one block. */
  bridgeGapMinutes: number;
  /** BCP 47 locale for the "until" date; the default reads "Fri, 27 Nov". */
  locale?: string;
}

export const DEFAULT_RULES: UserRules = Object.freeze({
  ooo: {
    text: "Out of office",
    emoji: ":palm_tree:",
    keywords: ["out of office", "ooo", "vacation", "pto", "annual leave", "on leave"],
  },
  focus: {
    text: "Focus time",
    emoji: ":headphones:",
    keywords: ["focus", "focus time", "deep work", "no meetings"],
  },
  meeting: { text: "In a meeting", emoji: ":spiral_calendar_pad:", keywords: [] },
  skipTentative: true,
  showTitles: false,
  bridgeGapMinutes: 0,
}) as UserRules;

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

/**
 * Parses partial user rules (config files, the admin API) and merges them over the defaults.
 * Absent rules (undefined or null) mean "all defaults".
 */
export const userRulesSchema = z.preprocess(
  (value) => value ?? {},
  z
    .object({
      ooo: kindRuleInput.optional(),
      focus: kindRuleInput.optional(),
      meeting: kindRuleInput.optional(),
      skipTentative: z.boolean().optional(),
      showTitles: z.boolean().optional(),
      bridgeGapMinutes: z
        .number()
        .int()
        .min(0)
        .max(24 * 60)
        .optional(),
      locale: z.string().refine(isLocale, "locale must be a BCP 47 tag, e.g. en-GB").optional(),
    })
    .strict()
    .transform(
      (input): UserRules => ({
        ooo: { ...DEFAULT_RULES.ooo, ...input.ooo },
        focus: { ...DEFAULT_RULES.focus, ...input.focus },
        meeting: { ...DEFAULT_RULES.meeting, ...input.meeting },
        skipTentative: input.skipTentative ?? DEFAULT_RULES.skipTentative,
        showTitles: input.showTitles ?? DEFAULT_RULES.showTitles,
        bridgeGapMinutes: input.bridgeGapMinutes ?? DEFAULT_RULES.bridgeGapMinutes,
        ...(input.locale ? { locale: input.locale } : {}),
      }),
    ),
);

export type Classification = { kind: StatusKind; text: string; emoji: string } | { skip: string };

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Whole-word, case-insensitive match, so "ooo" matches "OOO - dentist" but not "foooo". */
export function matchesKeyword(title: string, keywords: string[]): boolean {
  return keywords.some((k) =>
    new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(k.trim())}($|[^\\p{L}\\p{N}])`, "iu").test(title),
  );
}

const PRIVATE_CLASSES = new Set(["PRIVATE", "CONFIDENTIAL"]);

/** Decides the status kind of one occurrence (ooo > focus > meeting), or why it sets none. */
export function classify(o: Occurrence, rules: UserRules): Classification {
  const status = o.status?.toUpperCase();
  const partstat = o.partstat?.toUpperCase();
  if (status === "CANCELLED") return { skip: "cancelled" };
  if (partstat === "DECLINED") return { skip: "declined by the user" };
  if (rules.skipTentative && (partstat === "TENTATIVE" || status === "TENTATIVE")) {
    return { skip: "tentative" };
  }
  const oofStatus = o.busyStatus?.toUpperCase() === "OOF";
  // An explicit OOF busy status outranks TRANSP; keywords do not (holiday feeds are free).
  if (o.transp?.toUpperCase() === "TRANSPARENT" && !oofStatus) {
    return { skip: "transparent (shown as free)" };
  }
  if (o.busyStatus?.toUpperCase() === "FREE" && !oofStatus) {
    return { skip: "shown as free" };
  }
  const ooo = oofStatus || matchesKeyword(o.summary, rules.ooo.keywords);
  if (o.allDay && !ooo) return { skip: "all-day event that is not out of office" };
  const kind: StatusKind = ooo
    ? "ooo"
    : matchesKeyword(o.summary, rules.focus.keywords)
      ? "focus"
      : "meeting";
  const rule = rules[kind];
  const mayShowTitle =
    rules.showTitles &&
    o.summary.trim() !== "" &&
    !PRIVATE_CLASSES.has(o.class?.toUpperCase() ?? "");
  const text = truncateText(mayShowTitle ? o.summary.trim() : rule.text);
  return { kind, text, emoji: rule.emoji };
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
