import type { CustomStatus, UserRules } from "./rules-schema";
import {
  defaultStatusKinds,
  rankKinds,
  type StatusKind,
  type StatusKindEntry,
  type StatusKindTable,
} from "./status-kinds";
import { truncateText } from "./text";
import type { Occurrence } from "./types";

export * from "./rules-schema";
export { outOfOfficeText } from "./until-text";

/** What an occurrence shows, and the rule that chose it ("Lunch: keyword lunch", "meeting"). */
export interface Match<K extends string = StatusKind> {
  kind: K | "custom";
  text: string;
  emoji: string;
  priority: number;
  dnd: boolean;
  /** The custom status's name. */
  name?: string;
  rule: string;
}

/** Why an occurrence sets no status; `calendar` names the source a calendar skip is about. */
export interface Skip {
  skip: string;
  calendar?: string;
}

export type Classification<K extends string = StatusKind> = Match<K> | Skip;

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The first of `keywords` that is a whole word (or words) of `title`, in any case. */
export function matchedKeyword(title: string, keywords: readonly string[]): string | undefined {
  return keywords.find((k) =>
    new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(k.trim())}($|[^\\p{L}\\p{N}])`, "iu").test(title),
  );
}

/** Whole-word, case-insensitive match, so "ooo" matches "OOO - dentist" but not "foooo". */
export function matchesKeyword(title: string, keywords: string[]): boolean {
  return matchedKeyword(title, keywords) !== undefined;
}

/** People in the occurrence besides the user (occurrences made before it was counted: estimated). */
export const guestsOf = (o: Occurrence): number => o.guests ?? Math.max(0, o.attendeeCount - 1);

/**
 * Why `o` matches the custom status, or undefined when it does not: every condition given holds
 * (an empty list sets none). An all-day event matches only by a keyword: a status without
 * keywords would otherwise turn every all-day event of its calendars into a day-long status.
 */
function customReason(c: CustomStatus, o: Occurrence): string | undefined {
  const why: string[] = [];
  if (c.keywords.length > 0) {
    const keyword = matchedKeyword(o.summary, c.keywords);
    if (keyword === undefined) return undefined;
    why.push(`keyword ${keyword.trim()}`);
  } else if (o.allDay) {
    return undefined;
  }
  if (c.calendars.length > 0) {
    if (o.sourceId === undefined || !c.calendars.includes(o.sourceId)) return undefined;
    why.push(`calendar ${o.sourceId}`);
  }
  if (c.online !== undefined) {
    if ((o.online === true) !== c.online) return undefined;
    why.push(c.online ? "video call" : "no video call");
  }
  return why.length > 0 ? why.join(", ") : "every event";
}

const PRIVATE_CLASSES = new Set(["PRIVATE", "CONFIDENTIAL"]);

interface Candidate<K extends string> {
  kind: K | "custom";
  priority: number;
  text: string;
  emoji: string;
  dnd: boolean;
  name?: string;
  rule: string;
}

/**
 * Decides what one occurrence shows, or why it shows nothing.
 * - Skipped first: a calendar in `skipCalendars`, a cancelled or declined event, a tentative
 *   one (with `skipTentative`), one shown as free (unless a native busy status names a kind).
 * - Then every kind it matches competes, and the highest priority wins: a built-in kind by its
 *   native busy status or a title keyword, a custom status by all its conditions. On equal
 *   numbers the person's own status wins, the first listed. Only when nothing matches is it the
 *   fallback kind (a meeting). An all-day event counts only for kinds that show all-day events.
 * - With `skipNoGuests`, a meeting with nobody else in it shows nothing; an event another
 *   kind or a custom status chose (focus time, lunch) still shows.
 * The default table is the one Statuspilot knows; a test may pass an extended one.
 */
export function classify<K extends string = StatusKind>(
  o: Occurrence,
  rules: UserRules<K>,
  table: StatusKindTable<K> = defaultStatusKinds<K>(),
): Classification<K> {
  const { entries } = rankKinds(table);
  const skipCalendars = rules.skipCalendars ?? [];
  if (o.sourceId !== undefined && skipCalendars.includes(o.sourceId)) {
    return { skip: `calendar ${o.sourceId}`, calendar: o.sourceId };
  }
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

  let best: Candidate<K> | undefined;
  const consider = (c: Candidate<K>) => {
    if (best === undefined || c.priority > best.priority) best = c;
  };
  for (const c of rules.custom ?? []) {
    const reason = customReason(c, o);
    if (reason === undefined) continue;
    const { name, text, emoji, priority, dnd } = c;
    consider({ kind: "custom", name, text, emoji, priority, dnd, rule: `${name}: ${reason}` });
  }
  const builtIn = (e: StatusKindEntry<K>, rule: string): Candidate<K> => {
    const { text, emoji, dnd } = rules[e.kind];
    return { kind: e.kind, priority: e.priority, text, emoji, dnd: dnd === true, rule };
  };
  for (const e of entries) {
    if (o.allDay && !e.match.allDay) continue;
    if (e === nativeKind) {
      consider(builtIn(e, `${e.label}: marked so in the calendar`));
      continue;
    }
    const keyword = matchedKeyword(o.summary, rules[e.kind].keywords);
    if (keyword !== undefined) consider(builtIn(e, `${e.label}: keyword ${keyword.trim()}`));
  }
  const fallback = entries.find((e) => e.match.fallback === true);
  if (best === undefined && fallback !== undefined && (!o.allDay || fallback.match.allDay)) {
    best = builtIn(fallback, fallback.label);
  }
  const chosen: Candidate<K> | undefined = best;
  if (chosen === undefined) {
    const shown = entries.filter((e) => e.match.allDay).map((e) => e.label);
    return { skip: `all-day event that is not ${shown.join(" or ")}` };
  }
  if (rules.skipNoGuests && chosen.kind === fallback?.kind && guestsOf(o) === 0) {
    return { skip: "no guests" };
  }
  const mayShowTitle =
    rules.showTitles &&
    o.summary.trim() !== "" &&
    !PRIVATE_CLASSES.has(o.class?.toUpperCase() ?? "");
  const text = truncateText(mayShowTitle ? o.summary.trim() : chosen.text);
  return {
    kind: chosen.kind,
    text,
    emoji: chosen.emoji,
    priority: chosen.priority,
    dnd: chosen.dnd,
    ...(chosen.name !== undefined ? { name: chosen.name } : {}),
    rule: chosen.rule,
  };
}
