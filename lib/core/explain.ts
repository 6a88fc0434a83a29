import { classify, outOfOfficeText, type UserRules } from "./rules";
import {
  defaultStatusKinds,
  rankKinds,
  type StatusKind,
  type StatusKindTable,
} from "./status-kinds";
import type { BlockKind, Occurrence } from "./types";

/** What one event shows and why: a line of the settings page's "Today". */
export interface EventExplanation<K extends string = StatusKind> {
  uid: string;
  /** The event's title: for the person only (never a log line). */
  title: string;
  start: number;
  end: number;
  allDay: boolean;
  sourceId?: string;
  /** The status the event sets (a block of higher priority may still show over it). */
  status?: {
    kind: BlockKind<K>;
    name?: string;
    text: string;
    emoji: string;
    priority: number;
    dnd: boolean;
  };
  /** The rule that chose it ("Lunch: keyword lunch", "meeting"), or "skipped: <why>". */
  rule: string;
  /** For "skipped: calendar <id>": the calendar's id, so a page can name it. */
  skippedCalendar?: string;
}

/**
 * Each occurrence that overlaps [from, to), in start order, with the status it sets and the rule
 * that chose it, as the timeline classifies it (rules.ts classify). Pure: a page calls it with the
 * day's occurrences (their `sourceId` set) and the person's rules and zone.
 */
export function explainDay<K extends string = StatusKind>(
  occurrences: readonly Occurrence[],
  rules: UserRules<K>,
  tz: string,
  from: number,
  to: number,
  table: StatusKindTable<K> = defaultStatusKinds<K>(),
): EventExplanation<K>[] {
  const showsUntil = new Set<string>(
    rankKinds(table)
      .entries.filter((e) => e.showsUntil === true)
      .map((e) => e.kind),
  );
  return occurrences
    .filter((o) => o.start < to && o.end > from)
    .sort((a, b) => a.start - b.start || a.end - b.end || a.uid.localeCompare(b.uid))
    .map((o) => {
      const base = {
        uid: o.uid,
        title: o.summary,
        start: o.start,
        end: o.end,
        allDay: o.allDay,
        ...(o.sourceId !== undefined ? { sourceId: o.sourceId } : {}),
      };
      const c = classify(o, rules, table);
      if ("skip" in c) {
        return {
          ...base,
          rule: `skipped: ${c.skip}`,
          ...(c.calendar !== undefined ? { skippedCalendar: c.calendar } : {}),
        };
      }
      const text = showsUntil.has(c.kind)
        ? outOfOfficeText(c.text, o.end, tz, rules.locale, o.start)
        : c.text;
      return {
        ...base,
        status: {
          kind: c.kind,
          ...(c.name !== undefined ? { name: c.name } : {}),
          text,
          emoji: c.emoji,
          priority: c.priority,
          dnd: c.dnd,
        },
        rule: c.rule,
      };
    });
}
