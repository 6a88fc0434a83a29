import {
  type Block,
  EMPTY_STATUS,
  effectiveStatus,
  isEmptyStatus,
  type StatusValue,
  sameStatus,
} from "#lib/core/types";

/**
 * What the profile should show with `standing: "restore"`, restated plainly from what the person
 * did and the timeline (never from the reconciler's beliefs):
 * - a status the person set with an expiry shows until it expires (as in keep mode, one a write
 *   of ours landed on in a race is gone: only one still on the profile counts);
 * - else, while a block shows, its status, unless the person set their standing status during
 *   it;
 * - else, the standing status: the latest status the person set with no expiry, unless they
 *   cleared a status by hand after it (clearing an empty profile clears nothing).
 */
export class RestoreOracle {
  private latest: { status: StatusValue; at: number } | undefined;
  private standing: { status: StatusValue; at: number } | undefined;

  /** The person sets `status` at `at` (an empty one: they clear it); `shown`: what showed then. */
  acts(status: StatusValue, at: number, shown: StatusValue): void {
    this.latest = { status, at };
    if (isEmptyStatus(status)) {
      if (!isEmptyStatus(effectiveStatus(shown, at))) this.standing = undefined;
    } else if (status.expiration === 0) {
      this.standing = { status, at };
    }
  }

  /** What should show at `now`; `block`: the block showing then; `shown`: what the profile shows. */
  expected(now: number, block: Block | undefined, shown: StatusValue): StatusValue {
    const latest = this.latest?.status;
    if (latest !== undefined && latest.expiration > 0 && sameStatus(latest, shown)) {
      if (!isEmptyStatus(effectiveStatus(latest, now))) return latest;
    }
    const standing = this.standing;
    if (block !== undefined) {
      if (standing !== undefined && standing.at >= block.start) return standing.status;
      return { text: block.text, emoji: block.emoji, expiration: block.expiration };
    }
    return standing?.status ?? { ...EMPTY_STATUS };
  }

  /**
   * Whether a status of the person's showing now must stand: all do, but their standing status
   * from before the block showing (`block`), which that block shows over.
   */
  stands(shown: StatusValue, block: Block | undefined): boolean {
    const standing = this.standing;
    if (block === undefined || standing === undefined) return true;
    return !(sameStatus(shown, standing.status) && standing.at < block.start);
  }
}
