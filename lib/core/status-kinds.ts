/**
 * The status kinds, in one table. Everything that depends on the set of kinds derives from it:
 * the `StatusKind` type, the per-kind members of the user rules and their schema (rules.ts), how
 * an occurrence is classified (rules.ts) and which block wins an overlap (timeline.ts).
 *
 * One entry per kind:
 * - `kind`: the name, stored in timelines and used as the key of the kind's member in the rules.
 * - `label`: how a skip reason names the kind ("all-day event that is not out of office").
 * - `priority`: which kind shows when blocks overlap, and which kind an occurrence is when it
 *   matches several. Higher wins; every kind has its own number. A person's own statuses
 *   (`custom` in the rules) rank on the same scale with numbers from 1 to 99, and the stretch
 *   outside working hours at 5, so the built-in kinds are spaced out: 30, 20, 10.
 * - `defaults`: the text and emoji shown when the user's rules do not name others.
 * - `match`: how an occurrence is recognised as this kind. `keywords` are the default title
 *   keywords (whole words, any case; the user's rules may replace them). `busyStatuses` are
 *   native busy statuses (X-MICROSOFT-CDO-BUSYSTATUS) that select the kind whatever the title
 *   says, even on an event shown as free. `allDay` says whether an all-day event may show it
 *   (otherwise all-day events are calendar furniture, not a status). `fallback` marks the one
 *   kind an occurrence is when no other matches.
 * - `showsUntil`: the text gets " until <end>" in the user's zone (an absence says when it ends).
 *
 * A new kind is one entry here, placed by its priority. Its rules member, schema, defaults and
 * rank follow; a consumer that treats one kind specially (the out-of-office queue reason) names it.
 * Stored blocks of these kinds carry no priority: their rank is read from this table, so the
 * numbers must not change once blocks are stored (a block of another kind carries its own).
 */

/** How an occurrence is recognised as one kind. */
export interface StatusKindMatch {
  readonly keywords: readonly string[];
  readonly busyStatuses?: readonly string[];
  readonly allDay: boolean;
  readonly fallback?: boolean;
}

export interface StatusKindEntry<K extends string = string> {
  readonly kind: K;
  readonly label: string;
  readonly priority: number;
  readonly defaults: { readonly text: string; readonly emoji: string };
  readonly match: StatusKindMatch;
  readonly showsUntil?: boolean;
}

/** The kinds Statuspilot knows, highest priority first. */
export const STATUS_KINDS = [
  {
    kind: "ooo",
    label: "out of office",
    priority: 30,
    defaults: { text: "Out of office", emoji: ":palm_tree:" },
    match: {
      keywords: ["out of office", "ooo", "vacation", "pto", "annual leave", "on leave"],
      busyStatuses: ["OOF"],
      allDay: true,
    },
    showsUntil: true,
  },
  {
    kind: "focus",
    label: "focus time",
    priority: 20,
    defaults: { text: "Focus time", emoji: ":headphones:" },
    match: {
      keywords: ["focus", "focus time", "deep work", "no meetings"],
      // Not an X-MICROSOFT-CDO-BUSYSTATUS value: what a Google focusTime event maps to.
      busyStatuses: ["FOCUS"],
      allDay: false,
    },
  },
  {
    kind: "meeting",
    label: "meeting",
    priority: 10,
    defaults: { text: "In a meeting", emoji: ":spiral_calendar_pad:" },
    match: { keywords: [], allDay: false, fallback: true },
  },
] as const satisfies readonly StatusKindEntry[];

export type StatusKind = (typeof STATUS_KINDS)[number]["kind"];

/** A table of kinds; the default is `STATUS_KINDS`, tests may pass an extended one. */
export type StatusKindTable<K extends string = StatusKind> = readonly StatusKindEntry<K>[];

/** A table's kinds checked once and in rank order. */
export interface RankedKinds<K extends string> {
  /** Highest priority first. */
  readonly entries: readonly StatusKindEntry<K>[];
  readonly priority: ReadonlyMap<K, number>;
}

export class StatusKindTableError extends Error {
  readonly code = "invalid_status_kind_table";
}

const ranked = new WeakMap<StatusKindTable<string>, RankedKinds<string>>();

/**
 * The table in rank order, checked: kind names and priorities are unique, and exactly one kind
 * is the fallback. Cached per table, because classification asks once per occurrence.
 */
export function rankKinds<K extends string>(table: StatusKindTable<K>): RankedKinds<K> {
  const cached = ranked.get(table) as RankedKinds<K> | undefined;
  if (cached !== undefined) return cached;
  const kinds = new Set(table.map((e) => e.kind));
  const priorities = new Set(table.map((e) => e.priority));
  const fallbacks = table.filter((e) => e.match.fallback === true).length;
  if (kinds.size !== table.length) throw new StatusKindTableError("status kinds must be unique");
  if (priorities.size !== table.length) {
    throw new StatusKindTableError("every status kind needs its own priority");
  }
  if (fallbacks !== 1) throw new StatusKindTableError("exactly one status kind is the fallback");
  const entries = [...table].sort((a, b) => b.priority - a.priority);
  const result: RankedKinds<K> = {
    entries,
    priority: new Map(entries.map((e) => [e.kind, e.priority])),
  };
  ranked.set(table, result);
  return result;
}

/**
 * The default table, typed for a function generic in its kinds: K is `StatusKind` unless the
 * caller passes its own table (and then it passes rules for that table too).
 */
export const defaultStatusKinds = <K extends string>(): StatusKindTable<K> =>
  STATUS_KINDS as unknown as StatusKindTable<K>;
