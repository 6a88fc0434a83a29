import { describe, expect, it } from "vitest";
import { dueNow } from "#lib/core/reconcile/decision";
import { claimWrite, initialStatusState } from "#lib/core/reconcile/state";
import { applyObservation } from "#lib/core/reconcile/user-change";
import { recordWrite, releaseWrite } from "#lib/core/reconcile/write-outcome";
import { type Block, EMPTY_STATUS, type StatusValue } from "#lib/core/types";

const NOW = Date.UTC(2025, 2, 3, 9, 0, 0);
const LEASE = 30_000;
const meeting = (start: number, end: number): Block => ({
  start,
  end,
  kind: "meeting",
  text: "In a meeting",
  emoji: ":calendar:",
  expiration: Math.floor(end / 1000),
});
const block = meeting(NOW, NOW + 30 * 60_000);
const meetingStatus: StatusValue = {
  text: "In a meeting",
  emoji: ":calendar:",
  expiration: Math.floor(block.end / 1000),
};
const CLEAR = { kind: "clear", status: EMPTY_STATUS, reason: expect.any(String) };

describe("dueNow: the table over the stored state", () => {
  it("clears after the write in flight when the meeting is cancelled while its status is being set", () => {
    // Prepare: the set is claimed and sending; the profile still shows nothing.
    const state = claimWrite(initialStatusState(), meetingStatus, NOW);
    // Act: the meeting is cancelled 200 ms later.
    const d = dueNow(state, undefined, NOW + 200, LEASE);
    // Assess
    expect(d.verdict).toEqual(CLEAR);
    expect(d.pending?.status).toEqual(meetingStatus);
    expect(d.recheck).toBe(true);
  });

  it("leaves the write in flight alone when it is still the desired status", () => {
    // Prepare
    const state = claimWrite(initialStatusState(), meetingStatus, NOW);
    // Act
    const d = dueNow(state, block, NOW + 200, LEASE);
    // Assess
    expect(d.verdict).toEqual({ kind: "nothing", reason: expect.any(String) });
    expect(d.recheck).toBe(false);
  });

  it("treats the echo of a write whose call timed out as ours, so a later cancel clears it", () => {
    // Prepare: the set timed out, but the service applied it and echoed it.
    const sent = claimWrite(initialStatusState(), meetingStatus, NOW);
    const failed = releaseWrite(sent, NOW);
    const echo = applyObservation(failed, {
      eventId: "echo",
      eventTime: Math.floor(NOW / 1000) + 1,
      status: meetingStatus,
    });
    // Act: the meeting is cancelled.
    const d = dueNow(echo.state, undefined, NOW + 60_000, LEASE);
    // Assess
    expect(echo.result).toBe("ours");
    expect(echo.state.override).toBeUndefined();
    expect(echo.state.lastWritten).toEqual(meetingStatus);
    expect(d.verdict).toEqual(CLEAR);
  });

  it("clears a cancelled meeting whose failed set may have been applied, even without its echo", () => {
    // Prepare: the call failed with internal_error; no echo arrived.
    const failed = releaseWrite(claimWrite(initialStatusState(), meetingStatus, NOW), NOW);
    // Act
    const d = dueNow(failed, undefined, NOW + 60_000, LEASE);
    // Assess
    expect(d.verdict).toEqual(CLEAR);
  });

  it("sends the status again after a failed set when the meeting still goes on", () => {
    // Prepare
    const failed = releaseWrite(claimWrite(initialStatusState(), meetingStatus, NOW), NOW);
    // Act
    const d = dueNow(failed, block, NOW + 10_000, LEASE);
    // Assess
    expect(d.verdict).toEqual({ kind: "set", status: meetingStatus, reason: expect.any(String) });
  });

  it("keeps a manual status set while our write was being recorded", () => {
    // Prepare: sent at 09:00:00.200, recorded at 09:00:02.500; the user set Lunch at 09:00:01.
    const sentAt = NOW + 200;
    const recorded = recordWrite(
      claimWrite(initialStatusState(), meetingStatus, sentAt),
      meetingStatus,
      NOW + 2_500,
      sentAt,
    );
    const lunch: StatusValue = { text: "Lunch", emoji: ":taco:", expiration: 0 };
    // Act
    const observed = applyObservation(recorded, {
      eventId: "u1",
      eventTime: Math.floor(NOW / 1000) + 1,
      status: lunch,
    });
    const next = meeting(NOW + 30 * 60_000, NOW + 60 * 60_000);
    const d = dueNow(observed.state, next, next.start, LEASE);
    // Assess
    expect(observed.result).toBe("manual");
    expect(d.verdict).toEqual({ kind: "leave", reason: "manual override" });
  });

  it("decides again after the write in flight when the user changed the status meanwhile", () => {
    // Prepare: the user cleared the profile two seconds after our set was claimed.
    const claimed = claimWrite(initialStatusState(), meetingStatus, NOW);
    const cleared = applyObservation(claimed, {
      eventId: "u2",
      eventTime: Math.floor(NOW / 1000) + 2,
      status: { text: "", emoji: "", expiration: 0 },
    });
    // Act
    const d = dueNow(cleared.state, block, NOW + 3_000, LEASE);
    // Assess
    expect(d.pending).toBeDefined();
    expect(d.recheck).toBe(true);
  });
});
