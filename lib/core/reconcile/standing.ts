import {
  EMPTY_STATUS,
  effectiveStatus,
  isEmptyStatus,
  type StatusValue,
  sameStatus,
} from "../types";

/*
 * The standing status (docs/reconcile.md, "Restore"): the status the person last set with no
 * expiry, unless they cleared a status by hand since. This file is its way in: what one sighting
 * of the profile (a `user_change`, a late one, or a read) makes of it. The decision reads it with
 * `standingOf`; with the rule `standing: "restore"`, blocks show over it and it is set back after
 * them.
 */

/** The person's latest status with no expiry, or their latest clear by hand (an empty status). */
export interface Standing {
  status: StatusValue;
  /**
   * When the person set it (or cleared by hand): the event's second, or for what a read found,
   * the read (the latest it can have been; a block that began before it does not show over it).
   */
  since: number;
  /** A read found it: the person set it after this instant (our observation before the read). */
  from?: number;
}

/** What a sighting is judged against: what the state knew before it. */
export interface StandingContext {
  /** The standing status as known (a clear by hand included). */
  known: Standing | undefined;
  /** The status believed showing, and since when. */
  actual: { status: StatusValue; observedAt: number };
  /** Our latest applied write, with the span of seconds in which the service applied it. */
  latest: { status: StatusValue; at: number; until?: number } | undefined;
  /** Writes of ours not recorded yet that may have landed after that belief (in flight, attempted). */
  unrecorded: StatusValue[];
  /** Our latest write, when it may have landed after that belief (applied in its second or later). */
  landed: StatusValue | undefined;
  /** Every status of ours that may still echo: applied, attempted, or in flight. */
  ours: StatusValue[];
}

/**
 * One sighting of the profile: a `user_change` (`event`), one older than what was observed
 * since (`late`), or a read; `status` as reported (expiration 0 when empty), `at` epoch ms.
 */
export interface Sighting {
  status: StatusValue;
  at: number;
  by: "event" | "late" | "read";
}

const secondOf = (ms: number): number => Math.floor(ms / 1000);

/** The status to set back after blocks: the standing one, unless the person cleared it. */
export function standingOf(known: Standing | undefined): Standing | undefined {
  return known === undefined || isEmptyStatus(known.status) ? undefined : known;
}

/**
 * The standing status after `seen`. A status with no expiry that is not ours becomes it (found
 * again by a read while it shows, it keeps its time); a late one only says when the person set
 * the one a read found. An empty profile is a clear by hand, unless
 * an expiry explains it or it falls in the second of our latest write (a tie the read before the
 * next write settles); a late clear cannot be told from an expiry and changes nothing. A status
 * with an expiry is an override and changes nothing either.
 */
export function standingAfter(context: StandingContext, seen: Sighting): Standing | undefined {
  const { known, actual } = context;
  const status = seen.status;
  const from = seen.by === "read" ? { from: Math.min(seen.at, actual.observedAt) } : {};
  if (!isEmptyStatus(status)) {
    if (status.expiration !== 0 || context.ours.some((s) => sameStatus(s, status))) return known;
    if (seen.by === "late") return lateSet(known, status, seen.at);
    // A read finding it again while it is believed showing tells nothing new: it keeps its time.
    // An event is the person setting it (again, perhaps over a write of ours): from then on.
    const again = known !== undefined && sameStatus(known.status, status);
    if (seen.by === "read" && again && sameStatus(actual.status, status)) return known;
    return { status, since: seen.at, ...from };
  }
  if (seen.by === "late" || standingOf(known) === undefined) return known;
  if (emptiedByExpiry(context, seen)) return known;
  const latest = context.latest;
  const second = secondOf(seen.at);
  const tie =
    seen.by === "event" &&
    latest !== undefined &&
    secondOf(latest.at) <= second &&
    second <= secondOf(latest.until ?? latest.at);
  return tie ? known : { status: { ...EMPTY_STATUS }, since: seen.at, ...from };
}

/**
 * A late `user_change` setting `status` at `at` dates the standing status a read found, when it
 * falls in the window the read left open. Otherwise it says nothing: what showed between it and
 * now is not known (the person may have cleared it, in an event as late).
 */
function lateSet(
  known: Standing | undefined,
  status: StatusValue,
  at: number,
): Standing | undefined {
  const found = known?.from;
  const dates =
    known !== undefined &&
    found !== undefined &&
    sameStatus(known.status, status) &&
    secondOf(at) >= secondOf(found) &&
    at <= known.since;
  return dates ? { status, since: at } : known;
}

/**
 * Whether the profile's being empty at `at` is explained without a clear by hand: a clear of
 * ours may have landed after the belief, or of what may have been showing a status has expired
 * by then, or none was showing anything.
 */
function emptiedByExpiry(context: StandingContext, { at, by }: Sighting): boolean {
  const { actual, landed, unrecorded } = context;
  // A read cannot tell a write whose call failed from one never applied: such writes rarely are.
  const ours = [...(landed === undefined ? [] : [landed]), ...(by === "event" ? unrecorded : [])];
  if (ours.some(isEmptyStatus)) return true;
  const shown = [actual.status, ...ours].filter((s) => !isEmptyStatus(s));
  return shown.length === 0 || shown.some((s) => isEmptyStatus(effectiveStatus(s, at)));
}
