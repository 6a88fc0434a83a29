import { describe, expect, it } from "vitest";
import { dueNow } from "#lib/core/reconcile/decision";
import { applyRead, claimWrite, initialStatusState } from "#lib/core/reconcile/state";
import { applyObservation } from "#lib/core/reconcile/user-change";
import { recordWrite, releaseWrite } from "#lib/core/reconcile/write-outcome";
import type { StatusState } from "#lib/core/records";
import { type Block, EMPTY_STATUS, type StatusValue } from "#lib/core/types";

/*
 * When the reconciler asks for a read of the profile first (`readFirst`, which says why): while
 * a manual override stands and a write would be due were it gone, and when a user's change ties
 * with our latest write in one second. Never otherwise.
 */

const NOW = Date.UTC(2025, 2, 3, 9, 0, 0);
const LEASE = 30_000;
const MIN = 60_000;
const S = (ms: number) => Math.floor(ms / 1000);

const blockOf = (start: number, end: number, text: string, emoji: string): Block => ({
  start,
  end,
  kind: "meeting",
  text,
  emoji,
  expiration: S(end),
});
const statusOf = (b: Block): StatusValue => ({
  text: b.text,
  emoji: b.emoji,
  expiration: b.expiration,
});
const meetingBlock = blockOf(NOW - 30 * MIN, NOW + 30 * MIN, "In a meeting", ":calendar:");
const review = blockOf(NOW + 60 * MIN, NOW + 90 * MIN, "Design review", ":art:");
const meeting = statusOf(meetingBlock);
const EMPTY: StatusValue = { text: "", emoji: "", expiration: 0 };
/** A manual status without expiry (`status_expiration: 0`). */
const dog: StatusValue = { text: "Walking the dog", emoji: ":dog:", expiration: 0 };

let ids = 0;
const event = (state: StatusState, atMs: number, status: StatusValue) =>
  applyObservation(state, { eventId: `e${++ids}`, eventTime: S(atMs), status }).state;

/** We set the meeting at its start; later the user set a status without expiry, event seen. */
function overrideStanding(): StatusState {
  const ours = recordWrite(initialStatusState(), meeting, meetingBlock.start);
  return event(ours, NOW, dog);
}

describe("readFirst while a manual override stands", () => {
  it("asks for a read at the next block's start instead of leaving the override for good", () => {
    // Prepare
    const state = overrideStanding();
    // Act
    const d = dueNow(state, review, review.start, LEASE);
    // Assess
    expect(d.verdict).toEqual({ kind: "leave", reason: "manual override" });
    expect(d.readFirst).toBe("a manual override stands that may be gone");
  });

  it("asks for no read when no write would be due even with the override gone", () => {
    // Prepare: after the meeting's end, nothing is desired.
    const state = overrideStanding();
    // Act
    const d = dueNow(state, undefined, meetingBlock.end + MIN, LEASE);
    // Assess
    expect(d).toEqual({ verdict: { kind: "leave", reason: "manual override" } });
  });

  it("drops an override the read no longer finds and sets the block", () => {
    // Prepare: the user cleared it; that user_change was lost.
    const state = overrideStanding();
    // Act
    const read = applyRead(state, EMPTY, review.start);
    const d = dueNow(read.state, review, review.start, LEASE);
    // Assess
    expect(read.state.override).toBeUndefined();
    expect(d.verdict).toEqual({
      kind: "set",
      status: statusOf(review),
      reason: expect.any(String),
    });
  });

  it("keeps an override the read still finds, and leaves it", () => {
    // Prepare
    const state = overrideStanding();
    // Act
    const read = applyRead(state, dog, review.start);
    const d = dueNow(read.state, review, review.start, LEASE);
    // Assess
    expect(read.state.override).toEqual({ status: dog, since: review.start });
    expect(d.verdict).toEqual({ kind: "leave", reason: "manual override" });
  });

  it("asks for a read when a write of ours whose outcome is unknown may have replaced it", () => {
    // Prepare: a set went out at 09:05 and timed out; then the user's 09:00 status arrived.
    const ours = recordWrite(initialStatusState(), meeting, meetingBlock.start);
    const failed = releaseWrite(claimWrite(ours, statusOf(review), NOW + 5 * MIN), NOW + 5 * MIN);
    const state = event(failed, NOW, dog);
    // Act: nothing is desired any more; a clear is due if that set was applied.
    const d = dueNow(state, undefined, NOW + 6 * MIN, LEASE);
    // Assess
    expect(state.override?.status).toEqual(dog);
    expect(d.verdict).toEqual({ kind: "leave", reason: "manual override" });
    expect(d.readFirst).toBe("a manual override stands that may be gone");
  });

  it("asks for no read while no override stands and nothing ties: the common path", () => {
    // Prepare
    const ours = recordWrite(initialStatusState(), meeting, meetingBlock.start);
    const echoed = event(ours, meetingBlock.start + 1000, meeting);
    // Act
    const next = dueNow(echoed, review, review.start, LEASE);
    const cancelled = dueNow(echoed, undefined, NOW, LEASE);
    // Assess
    expect(next).toEqual({
      verdict: { kind: "set", status: statusOf(review), reason: expect.any(String) },
    });
    expect(cancelled).toEqual({
      verdict: { kind: "clear", status: EMPTY_STATUS, reason: expect.any(String) },
    });
  });
});

describe("a user's change and our write in the same second", () => {
  it("keeps the user's status when its event arrives after our write was recorded, and asks for a read", () => {
    // Prepare: our set went out at 09:00:00.300; the user's status is from second 09:00:00.
    const ours = recordWrite(initialStatusState(), meeting, NOW + 300);
    // Act
    const state = event(ours, NOW, dog);
    const cancelled = dueNow(state, undefined, NOW + MIN, LEASE);
    // Assess: either may be showing; a clear would be due if ours came last.
    expect(state.override?.status).toEqual(dog);
    expect(cancelled.verdict).toEqual({ kind: "leave", reason: "manual override" });
    expect(cancelled.readFirst).toBe("a manual override stands that may be gone");
  });

  it("ends in the same belief when the user's event arrives while our write is in flight", () => {
    // Prepare
    const claimed = claimWrite(initialStatusState(), meeting, NOW + 300);
    const seen = event(claimed, NOW, dog);
    // Act
    const inFlight = dueNow(seen, meetingBlock, NOW + 400, LEASE);
    const recorded = recordWrite(seen, meeting, NOW + 800, NOW + 300);
    const cancelled = dueNow(recorded, undefined, NOW + MIN, LEASE);
    // Assess: the sender decides again once its write is recorded, and then reads.
    expect(inFlight.recheck).toBe(true);
    expect(recorded.override?.status).toEqual(dog);
    expect(recorded.lastWritten).toEqual(meeting);
    expect(cancelled.readFirst).toBe("a manual override stands that may be gone");
  });

  it("clears our write when the read shows it came last", () => {
    // Prepare
    const state = event(recordWrite(initialStatusState(), meeting, NOW + 300), NOW, dog);
    // Act
    const read = applyRead(state, meeting, NOW + MIN);
    const d = dueNow(read.state, undefined, NOW + MIN, LEASE);
    // Assess
    expect(read.result).toBe("ours");
    expect(d.verdict).toEqual({ kind: "clear", status: EMPTY_STATUS, reason: expect.any(String) });
  });

  it("keeps the user's status when our write's echo arrives after it in the same second", () => {
    // Prepare: the user's change and the echo of our set both say second 09:00:01.
    const claimed = claimWrite(initialStatusState(), meeting, NOW + 900);
    const seen = event(claimed, NOW + 1000, dog);
    // Act
    const echoed = event(seen, NOW + 1000, meeting);
    // Assess
    expect(echoed.actual.status).toEqual(dog);
    expect(echoed.override?.status).toEqual(dog);
    expect(echoed.lastWritten).toEqual(meeting);
  });

  it("asks for a read before re-setting a status a same-second clear may have left in place", () => {
    // Prepare: the user cleared in the second our set went out.
    const state = event(recordWrite(initialStatusState(), meeting, NOW + 300), NOW, EMPTY);
    // Act
    const d = dueNow(state, meetingBlock, NOW + 2000, LEASE);
    // Assess
    expect(d.verdict).toEqual({ kind: "set", status: meeting, reason: expect.any(String) });
    expect(d.readFirst).toBe("a user's change ties with our latest write");
  });

  it("takes a user's change a second after our write was recorded as the user's, with no read", () => {
    // Prepare
    const ours = recordWrite(initialStatusState(), meeting, NOW + 300, NOW + 300);
    // Act
    const state = event(ours, NOW + 1000, EMPTY);
    const d = dueNow(state, meetingBlock, NOW + 2000, LEASE);
    // Assess
    expect(d).toEqual({ verdict: { kind: "set", status: meeting, reason: expect.any(String) } });
  });

  it("does not take a clear reported before our clear went out for its echo", () => {
    // Prepare: we set, then cleared at 09:00:05 (call timed out); a clear from 09:00:02 arrives.
    const ours = recordWrite(initialStatusState(), meeting, NOW);
    const sent = claimWrite(ours, EMPTY, NOW + 5000);
    const failed = releaseWrite(sent, NOW + 5000);
    // Act
    const { result } = applyObservation(failed, {
      eventId: "early-clear",
      eventTime: S(NOW + 2000),
      status: EMPTY,
    });
    // Assess
    expect(result).toBe("cleared");
  });
});
