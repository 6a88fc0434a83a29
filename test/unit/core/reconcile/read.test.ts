import { describe, expect, it } from "vitest";
import { dueNow } from "#lib/core/reconcile/decision";
import { applyRead, claimWrite, initialStatusState } from "#lib/core/reconcile/state";
import { applyObservation } from "#lib/core/reconcile/user-change";
import { recordWrite, releaseWrite } from "#lib/core/reconcile/write-outcome";
import { type Block, EMPTY_STATUS, type StatusValue } from "#lib/core/types";

const NOW = Date.UTC(2025, 2, 3, 9, 0, 0);
const LEASE = 30_000;
const MIN = 60_000;
const S = (ms: number) => Math.floor(ms / 1000);

const meetingBlock: Block = {
  start: NOW - MIN,
  end: NOW + 30 * MIN,
  kind: "meeting",
  text: "In a meeting",
  emoji: ":calendar:",
  expiration: S(NOW + 30 * MIN),
};
const focusBlock: Block = {
  start: NOW,
  end: NOW + 60 * MIN,
  kind: "focus",
  text: "Focusing",
  emoji: ":headphones:",
  expiration: S(NOW + 60 * MIN),
};
const meeting: StatusValue = {
  text: meetingBlock.text,
  emoji: meetingBlock.emoji,
  expiration: meetingBlock.expiration,
};
const focus: StatusValue = {
  text: focusBlock.text,
  emoji: focusBlock.emoji,
  expiration: focusBlock.expiration,
};
const lunch: StatusValue = { text: "Lunch", emoji: ":taco:", expiration: S(NOW + 45 * MIN) };
const EMPTY: StatusValue = { text: "", emoji: "", expiration: 0 };

/** We wrote the meeting status a while ago and its echo was recorded. */
const afterMeeting = () => recordWrite(initialStatusState(), meeting, NOW - 50_000);

describe("applyRead", () => {
  it("takes a status matching nothing of ours for a manual override, even with no event", () => {
    // Prepare: the user set "Lunch"; its user_change never arrived.
    const state = afterMeeting();
    // Act
    const { state: after, result } = applyRead(state, lunch, NOW);
    const d = dueNow(after, focusBlock, NOW, LEASE);
    // Assess
    expect(result).toBe("manual");
    expect(after.override).toEqual({ status: lunch, since: NOW });
    expect(after.actual).toEqual({ status: lunch, observedAt: NOW, source: "read" });
    expect(d.verdict).toEqual({ kind: "leave", reason: "manual override" });
  });

  it("leaves a manual status alone when the meeting ends, instead of clearing it", () => {
    // Prepare
    const { state } = applyRead(afterMeeting(), lunch, NOW);
    // Act
    const d = dueNow(state, undefined, NOW + MIN, LEASE);
    // Assess
    expect(d.verdict.kind).toBe("leave");
  });

  it("recognises our own last write and lets the next block's set go out", () => {
    // Prepare
    const state = afterMeeting();
    // Act
    const { state: after, result } = applyRead(state, meeting, NOW);
    const d = dueNow(after, focusBlock, NOW, LEASE);
    // Assess
    expect(result).toBe("ours");
    expect(after.override).toBeUndefined();
    expect(d.verdict).toEqual({ kind: "set", status: focus, reason: expect.any(String) });
  });

  it("confirms an attempt whose call failed but was applied, so it is what we last wrote", () => {
    // Prepare: the set timed out after the service applied it.
    const claimed = claimWrite(initialStatusState(), meeting, NOW - 10_000);
    const failed = releaseWrite(claimed, NOW - 10_000);
    // Act
    const { state: after, result } = applyRead(failed, meeting, NOW);
    // Assess
    expect(result).toBe("ours");
    expect(after.lastWritten).toEqual(meeting);
    expect(after.attempts).toEqual([]);
    // Sent then, and applied by the time the read showed it.
    expect(after.recentWrites.at(-1)).toEqual({ status: meeting, at: NOW - 10_000, until: NOW });
    // Its late echo counts as ours too.
    const echo = applyObservation(after, { eventId: "e", eventTime: S(NOW) + 1, status: meeting });
    expect(echo.result).toBe("ours");
  });

  it("sends no clear when the profile is already empty, and ends a stale override", () => {
    // Prepare: we believe the user's "Lunch" is showing; it is gone (its clear event was lost).
    const manual = applyObservation(afterMeeting(), {
      eventId: "m",
      eventTime: S(NOW - 20_000),
      status: lunch,
    }).state;
    // Act
    const { state: after, result } = applyRead(manual, EMPTY, NOW);
    const d = dueNow(after, undefined, NOW, LEASE);
    // Assess
    expect(result).toBe("empty");
    expect(after.override).toBeUndefined();
    expect(d.verdict).toEqual({ kind: "nothing", reason: expect.any(String) });
  });

  it("treats a status whose expiration has passed as empty", () => {
    // Prepare
    const expired = { ...lunch, expiration: S(NOW) - 5 };
    // Act
    const { state: after, result } = applyRead(afterMeeting(), expired, NOW);
    // Assess
    expect(result).toBe("empty");
    expect(after.actual.status).toEqual(EMPTY);
  });

  it("is not undone by an older user_change that arrives after it", () => {
    // Prepare: the read at NOW shows the profile empty (the user set Lunch, then cleared it).
    const { state } = applyRead(afterMeeting(), EMPTY, NOW);
    // Act: the Lunch event from two seconds before the read arrives late.
    const late = applyObservation(state, { eventId: "old", eventTime: S(NOW) - 2, status: lunch });
    // Assess
    expect(late.result).toBe("stale");
    expect(late.state.override).toBeUndefined();
    expect(late.state.actual.status).toEqual(EMPTY);
  });

  it("lets a user_change newer than the read through", () => {
    // Prepare
    const { state } = applyRead(afterMeeting(), meeting, NOW);
    // Act
    const later = applyObservation(state, { eventId: "new", eventTime: S(NOW) + 3, status: lunch });
    // Assess
    expect(later.result).toBe("manual");
    expect(later.state.override?.status).toEqual(lunch);
  });

  it("records the write claimed right after the read as what the profile shows", () => {
    // Prepare: read and claim in the same millisecond, as the reconciler does.
    const { state } = applyRead(afterMeeting(), meeting, NOW);
    const claimed = claimWrite(state, focus, NOW);
    // Act
    const written = recordWrite(claimed, focus, NOW + 200, NOW);
    // Assess
    expect(written.actual).toEqual({ status: focus, observedAt: NOW, source: "ours" });
    expect(written.lastWritten).toEqual(focus);
  });

  it("keeps a write claimed in the read's millisecond unresolved when its call fails", () => {
    // Prepare
    const { state } = applyRead(initialStatusState(), EMPTY, NOW);
    const failed = releaseWrite(claimWrite(state, meeting, NOW), NOW);
    // Act: the meeting is cancelled; the failed set may have been applied.
    const d = dueNow(failed, undefined, NOW + 15_000, LEASE);
    // Assess
    expect(d.verdict).toEqual({ kind: "clear", status: EMPTY_STATUS, reason: expect.any(String) });
  });
});
