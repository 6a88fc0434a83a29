import { toEpochSeconds } from "./clock";
import { classify, outOfOfficeText, type UserRules } from "./rules";
import {
  defaultStatusKinds,
  rankKinds,
  type StatusKind,
  type StatusKindTable,
} from "./status-kinds";
import type { Block, BlockKind, Occurrence } from "./types";

/** A stretch of time that wants a status. A Block is a Segment too (it has extra fields). */
export interface Segment<K extends string = StatusKind> {
  start: number;
  end: number;
  kind: BlockKind<K>;
  text: string;
  emoji: string;
  /** Its rank; without one, its kind's number in the table (see Block). */
  priority?: number;
  dnd?: boolean;
  name?: string;
}

// A kind missing from the table (a timeline stored by another version) ranks below all.
const rankOf = <K extends string>(priority: ReadonlyMap<string, number>, s: Segment<K>): number =>
  s.priority ?? priority.get(s.kind) ?? Number.NEGATIVE_INFINITY;

/** Higher priority first; among equals the earlier start, then text, so results are stable. */
const outranks = <K extends string>(
  priority: ReadonlyMap<string, number>,
  a: Segment<K>,
  b: Segment<K>,
): boolean => {
  const pa = rankOf(priority, a);
  const pb = rankOf(priority, b);
  return pa !== pb
    ? pa > pb
    : a.start !== b.start
      ? a.start < b.start
      : `${a.text}\u0000${a.emoji}` < `${b.text}\u0000${b.emoji}`;
};

/** What ranks and names a piece: the winner's, carried into the block. */
const rankFields = <K extends string>(s: Segment<K>) => ({
  kind: s.kind,
  ...(s.priority !== undefined ? { priority: s.priority } : {}),
  ...(s.name !== undefined ? { name: s.name } : {}),
});

const toBlock = <K extends string>(s: Segment<K>, start: number, end: number): Block<K> => ({
  start,
  end,
  ...rankFields(s),
  text: s.text,
  emoji: s.emoji,
  ...(s.dnd === true ? { dnd: true } : {}),
  expiration: toEpochSeconds(end),
});

/** One call shows both: the same text, emoji and Do Not Disturb. */
const sameStatus = (a: Segment<string>, b: Segment<string>): boolean =>
  a.text === b.text && a.emoji === b.emoji && (a.dnd === true) === (b.dnd === true);

/**
 * Resolves overlaps by priority (the block's own, else its kind's: ooo > focus > meeting), then
 * merges touching or overlapping pieces with the same status (text, emoji, Do Not Disturb) into
 * one block, so back-to-back meetings cost one set. Gaps of up to `bridgeGapMinutes` between
 * equal pieces are bridged. `keepRanks` merges only pieces of one priority and kind: a source's
 * stored blocks are ranked again against other sources', so none may carry a rank over time it
 * did not win at that rank (and a kind's "until" text stays on that kind's time).
 */
export function resolveSegments<K extends string = StatusKind>(
  segments: Segment<K>[],
  opts: { bridgeGapMinutes?: number; kinds?: StatusKindTable<K>; keepRanks?: boolean } = {},
): Block<K>[] {
  const { priority } = rankKinds(opts.kinds ?? defaultStatusKinds<K>());
  const ranks = priority as ReadonlyMap<string, number>;
  const live = segments.filter((s) => Number.isFinite(s.start) && s.end > s.start);
  const bounds = [...new Set(live.flatMap((s) => [s.start, s.end]))].sort((a, b) => a - b);
  const byStart = [...live].sort((a, b) => a.start - b.start);
  const pieces: Block<K>[] = [];
  let active: Segment<K>[] = [];
  let next = 0;
  for (let i = 0; i + 1 < bounds.length; i++) {
    const lo = bounds[i] as number;
    const hi = bounds[i + 1] as number;
    while (next < byStart.length && (byStart[next] as Segment<K>).start <= lo) {
      active.push(byStart[next] as Segment<K>);
      next++;
    }
    active = active.filter((s) => s.end > lo);
    let winner: Segment<K> | undefined;
    for (const s of active) if (!winner || outranks(ranks, s, winner)) winner = s;
    if (winner) pieces.push(toBlock(winner, lo, hi));
  }

  const gapMs = Math.max(0, opts.bridgeGapMinutes ?? 0) * 60_000;
  const blocks: Block<K>[] = [];
  for (const piece of pieces) {
    const last = blocks[blocks.length - 1];
    if (
      last &&
      sameStatus(last, piece) &&
      piece.start - last.end <= gapMs &&
      (opts.keepRanks !== true ||
        (rankOf(ranks, last) === rankOf(ranks, piece) && last.kind === piece.kind))
    ) {
      last.end = Math.max(last.end, piece.end);
      last.expiration = toEpochSeconds(last.end);
      if (rankOf(ranks, piece) > rankOf(ranks, last)) {
        delete last.priority;
        delete last.name;
        Object.assign(last, rankFields(piece));
      }
    } else {
      blocks.push({ ...piece });
    }
  }
  return blocks;
}

/**
 * The desired timeline for the occurrences that overlap [from, to): classify, resolve, merge,
 * then write "until <last day>" into the blocks of kinds that show it (out-of-office), in the
 * user's zone. Blocks of the table's kinds rank by the table; the others carry their priority.
 */
export function buildTimeline<K extends string = StatusKind>(
  occurrences: Occurrence[],
  opts: { rules: UserRules<K>; tz: string; from: number; to: number; kinds?: StatusKindTable<K> },
): Block<K>[] {
  const kinds = opts.kinds ?? defaultStatusKinds<K>();
  const { entries, priority } = rankKinds(kinds);
  const showsUntil = new Set<string>(
    entries.filter((e) => e.showsUntil === true).map((e) => e.kind),
  );
  const segments: Segment<K>[] = [];
  for (const o of occurrences) {
    if (!(o.start < opts.to && o.end > opts.from)) continue;
    const c = classify(o, opts.rules, kinds);
    if ("skip" in c) continue;
    const ranked = (priority as ReadonlyMap<string, number>).get(c.kind) === c.priority;
    segments.push({
      start: o.start,
      end: o.end,
      kind: c.kind,
      text: c.text,
      emoji: c.emoji,
      ...(ranked ? {} : { priority: c.priority }),
      ...(c.dnd ? { dnd: true } : {}),
      ...(c.name !== undefined ? { name: c.name } : {}),
    });
  }
  const blocks = resolveSegments(segments, {
    bridgeGapMinutes: opts.rules.bridgeGapMinutes,
    kinds,
    keepRanks: true,
  });
  return blocks.map((b) =>
    showsUntil.has(b.kind)
      ? { ...b, text: outOfOfficeText(b.text, b.end, opts.tz, opts.rules.locale, b.start) }
      : b,
  );
}

/** The block showing at instant t (start <= t < end), if any. */
export function desiredAt(timeline: Block[], t: number): Block | undefined {
  return timeline.find((b) => b.start <= t && t < b.end);
}

/** The next instant strictly after t at which the desired status changes. */
export function nextTransitionAfter(timeline: Block[], t: number): number | undefined {
  let best: number | undefined;
  for (const b of timeline) {
    for (const edge of [b.start, b.end]) {
      if (edge > t && (best === undefined || edge < best)) best = edge;
    }
  }
  return best;
}

/**
 * The next instant strictly after t at which Statuspilot must act: a block start. A block's end
 * needs no wake-up, because every set carries `status_expiration` = that end and the service
 * clears the status itself; a back-to-back successor starts at that same instant anyway.
 */
export function nextWakeAfter(timeline: Block[], t: number): number | undefined {
  let best: number | undefined;
  for (const b of timeline) {
    if (b.start > t && (best === undefined || b.start < best)) best = b.start;
  }
  return best;
}
