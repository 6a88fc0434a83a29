import { desiredAt } from "./timeline";
import type { Block, UserKey } from "./types";

/*
 * Do Not Disturb: the snooze a `dnd` block asks for, decided purely. In: the timeline, the
 * clock, the record of the snooze Statuspilot set (what it asked for and what the service
 * answered) and, after an `info` step, what `dnd.info` says now. Out: one step and its reason.
 * The loop around it (lib/app/status/dnd.ts) reads, claims, calls and records; it decides
 * nothing. Every call is claimed first: one in flight for something else than what shows now
 * (the block moved meanwhile) sends this reconcile back a moment later (`recheck`).
 *
 * A snooze is Statuspilot's own only while `dnd.info` says it ends at the second our
 * `dnd.setSnooze` answered: anything else is a snooze the person set (or changed), and it is
 * never ended nor cut short. A shorter snooze of the person's own that ours lengthened is set
 * back, not ended, when our block goes before it does (cancelled, or shortened to end before
 * theirs): the person's own Do Not Disturb comes back, whatever their `standing` rule.
 */

/** The user-token scopes the Do Not Disturb calls need: `dnd.info` and `dnd.setSnooze`. */
export const DND_SCOPES = ["dnd:read", "dnd:write"] as const;

/** The snooze Statuspilot set for one block. */
export interface OurSnooze {
  /** The block it was set for: its start and end, epoch ms. */
  blockStart: number;
  blockEnd: number;
  /** When the snooze ends, epoch seconds, as the service answered `dnd.setSnooze`. */
  endS: number;
  /**
   * The person's own snooze that ours lengthened: when it was to end, epoch seconds. Absent
   * when none was on (and in items stored before it existed).
   */
  theirsEndS?: number;
}

/**
 * A DND call claimed and not yet answered (a versioned write, like a status write): a snooze
 * for the block it names, or, without one, a snooze set back or ended.
 */
export interface SnoozeClaim {
  blockStart?: number;
  blockEnd?: number;
  claimedAt: number;
}

/** The store's record of a user's snooze (lib/store/items/snooze.ts). */
export interface SnoozeRecord {
  key: UserKey;
  ours?: OurSnooze;
  claim?: SnoozeClaim;
  version: number;
  updatedAt: number;
}

/** What `dnd.info` says of the caller's own snooze: when it ends (epoch s), or none is on. */
export interface SnoozeInfo {
  endS: number | undefined;
}

export type SnoozeStep =
  /** `dnd.setSnooze` of `minutes` for `block`, over the person's own until `theirsEndS`. */
  | { kind: "snooze"; minutes: number; block: Block; theirsEndS?: number; reason: string }
  /** `dnd.endSnooze`: our own snooze outlives the block it was for. */
  | { kind: "end"; reason: string }
  /**
   * `dnd.setSnooze` back to the end of the person's own snooze that ours lengthened (to the
   * minute, rounded up), then forget ours: the snooze on is the person's again.
   */
  | { kind: "restore"; minutes: number; reason: string }
  /** Ask `dnd.info`, then decide again with its answer. */
  | { kind: "info"; reason: string }
  /** No call; drop the record of our snooze (it ran out, or it is the person's now). */
  | { kind: "forget"; reason: string }
  /** A call in flight is for something else than what shows now: look again once it landed. */
  | { kind: "recheck"; reason: string }
  | { kind: "nothing"; reason: string };

export interface SnoozeSituation {
  timeline: Block[];
  /** Epoch ms. */
  now: number;
  ours: OurSnooze | undefined;
  /** A DND call another reconcile claimed, inside its lease: its sender's job. */
  inFlight?: SnoozeClaim;
  /** Only after an `info` step. */
  info?: SnoozeInfo;
}

/** Whole minutes from `now` to `end`, rounded up: the snooze covers the rest of the block. */
export const snoozeMinutes = (end: number, now: number): number =>
  Math.max(1, Math.ceil((end - now) / 60_000));

/** The snooze step for a user whose token may make DND calls. */
export function decideSnooze(situation: SnoozeSituation): SnoozeStep {
  const { timeline, now, ours, inFlight, info } = situation;
  const shown = desiredAt(timeline, now);
  const block = shown?.dnd === true ? shown : undefined;
  if (inFlight !== undefined) {
    // A call in flight for another calendar than this one (a block moved meanwhile) would leave
    // its answer standing: this reconcile comes back once it has landed, and decides again.
    const same = inFlight.blockStart === block?.start && inFlight.blockEnd === block?.end;
    return same
      ? { kind: "nothing", reason: "the call in flight is for what shows" }
      : { kind: "recheck", reason: "the call in flight is for something else" };
  }
  const isOurs = ours !== undefined && info !== undefined && info.endS === ours.endS;
  // The person's own snooze still to come back: the one ours lengthened, or the one on now.
  const theirsEnd = isOurs ? ours.theirsEndS : info?.endS;
  const theirsEndS = theirsEnd !== undefined && theirsEnd * 1000 > now ? theirsEnd : undefined;
  if (block !== undefined) {
    if (ours !== undefined && ours.blockStart === block.start && ours.blockEnd === block.end) {
      return { kind: "nothing", reason: "snoozed for this block" };
    }
    // Before a set: a longer snooze of the person's own must not be cut short by ours.
    if (info === undefined) return { kind: "info", reason: "a dnd block shows" };
    if (theirsEndS !== undefined && theirsEndS * 1000 >= block.end) {
      return isOurs
        ? restore(theirsEndS, now, "the block shrank inside the person's own snooze")
        : { kind: "nothing", reason: "the person's own snooze covers the block" };
    }
    const minutes = snoozeMinutes(block.end, now);
    const reason =
      ours !== undefined && ours.blockStart === block.start
        ? "the block changed length"
        : "a dnd block started";
    return { kind: "snooze", minutes, block, ...(theirsEndS ? { theirsEndS } : {}), reason };
  }
  if (ours === undefined) return { kind: "nothing", reason: "no dnd block" };
  // The block ran its course: the service ends the snooze (at most the rounding later). The
  // stale record costs no write: the next dnd block's snooze replaces it. A snooze of the
  // person's own that ours lengthened ended before the block did.
  if (now >= ours.blockEnd || now >= ours.endS * 1000) {
    return { kind: "nothing", reason: "our snooze ran its course" };
  }
  if (info === undefined) return { kind: "info", reason: "our block was cancelled or shortened" };
  if (!isOurs) return { kind: "forget", reason: "the snooze on is the person's own" };
  if (theirsEndS !== undefined) {
    return restore(theirsEndS, now, "our block was cancelled or shortened");
  }
  return { kind: "end", reason: "our block was cancelled or shortened" };
}

const restore = (theirsEndS: number, now: number, why: string): SnoozeStep => ({
  kind: "restore",
  minutes: snoozeMinutes(theirsEndS * 1000, now),
  reason: `${why}: the person's own snooze is set back`,
});

/**
 * Whether Statuspilot may make DND calls for a person. With their token's scopes on record
 * (from the install, less the DND ones once the service answered `missing_scope`), those
 * decide. Without: a person installed through the front door before it asked for DND has
 * none; one set up by an administrator (no install) is tried until the service refuses.
 */
export function dndAllowed(user: {
  grantedScopes?: readonly string[];
  sessionEpoch?: number;
}): boolean {
  const granted = user.grantedScopes;
  if (granted !== undefined) return DND_SCOPES.every((scope) => granted.includes(scope));
  return user.sessionEpoch === undefined;
}
