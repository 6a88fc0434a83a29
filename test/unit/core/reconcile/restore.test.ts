import { describe, expect, it } from "vitest";
import { decide, type ReconcilePolicy } from "#lib/core/reconcile/decision";
import { applyRead, initialStatusState, type ProfileRead } from "#lib/core/reconcile/state";
import { applyObservation } from "#lib/core/reconcile/user-change";
import { withSchedule } from "#lib/core/reconcile/wake-up";
import { recordWrite } from "#lib/core/reconcile/write-outcome";
import type { StatusState } from "#lib/core/records";
import type { Block, StatusValue } from "#lib/core/types";

/*
 * The rows of `standing: "restore"` (docs/reconcile.md), one test each: R1–R12 through
 * decide(), then what observations do to the standing status (the way in), then the restore's
 * wake-up. States are built with the transitions the reconciler applies; each expectation
 * restates the row in its name.
 */

const MIN = 60_000;
const NOW = Date.UTC(2025, 3, 7, 9, 0, 0);
const sec = (ms: number): number => Math.floor(ms / 1000);

const blockOf = (start: number, end: number, text = "In a meeting"): Block => ({
  start,
  end,
  kind: "meeting",
  text,
  emoji: ":calendar:",
  expiration: sec(end),
});
const statusOf = (b: Block): StatusValue => ({
  text: b.text,
  emoji: b.emoji,
  expiration: b.expiration,
});
/** A meeting from 5 minutes ago to 25 minutes from now. */
const current = blockOf(NOW - 5 * MIN, NOW + 25 * MIN);
const meeting = statusOf(current);
/** A meeting that ended a second ago: its status expired at its end. */
const ended = blockOf(NOW - 31 * MIN, NOW - 1_000);
const EMPTY: StatusValue = { text: "", emoji: "", expiration: 0 };
/** The person's own status, set with no expiry. */
const remote: StatusValue = {
  text: "Working remotely",
  emoji: ":house_with_garden:",
  expiration: 0,
};
const lunch: StatusValue = { text: "Lunch", emoji: ":sandwich:", expiration: 0 };

const POLICY: ReconcilePolicy = {
  paused: false,
  leaseMs: 30_000,
  verifyBeforeWrite: false,
  inFlightRecheckMs: 1_000,
};
const RESTORE: ReconcilePolicy = { ...POLICY, standing: "restore" };

const fresh = initialStatusState();
/** The person sets `status` themselves, reported by a user_change at `at`. */
const userSets = (state: StatusState, at: number, status: StatusValue): StatusState =>
  applyObservation(state, { eventId: `u-${at}-${status.text}`, eventTime: sec(at), status }).state;
/** We wrote `status` at `at` and the service confirmed it. */
const weWrote = (state: StatusState, status: StatusValue, at: number): StatusState =>
  recordWrite(state, status, at + 200, at);
/** "Working remotely", set two hours ago: the standing status, showing. */
const standing = userSets(fresh, NOW - 120 * MIN, remote);
/** Our meeting status written over it at the meeting's start. */
const meetingOverStanding = weWrote(standing, meeting, current.start);
/** The earlier meeting's status written over it, now expired. */
const endedOverStanding = weWrote(standing, statusOf(ended), ended.start);
const shown = (status: StatusValue): ProfileRead => ({ kind: "shown", status, at: NOW });

function step(
  state: StatusState,
  timeline: Block[],
  read: ProfileRead | undefined,
  policy: ReconcilePolicy = RESTORE,
) {
  const record = { key: { team: "T1", user: "U1" }, state, version: 1, updatedAt: 0 };
  const d = decide({ record, timeline, now: NOW, policy, ...(read ? { read } : {}) });
  return { ...d.status, state: d.record.state, wake: d.record.nextTransitionAt };
}

interface Row {
  row: string;
  state: StatusState;
  timeline: Block[];
  /** What a read would show: the profile as the row believes it. */
  profile: StatusValue;
  /** The step after that read (a row that writes asks for the read first). */
  expected: Record<string, unknown>;
}

const rows: Row[] = [
  {
    row: "R1 a status the person set with an expiry is left",
    state: userSets(meetingOverStanding, NOW - 2 * MIN, {
      ...lunch,
      expiration: sec(NOW + 20 * MIN),
    }),
    timeline: [current],
    profile: { ...lunch, expiration: sec(NOW + 20 * MIN) },
    expected: { kind: "leave", reason: "manual override" },
  },
  {
    row: "R1 once that status has expired, the standing status comes back",
    state: userSets(standing, NOW - 40 * MIN, { ...lunch, expiration: sec(NOW - MIN) }),
    timeline: [],
    profile: EMPTY,
    expected: { kind: "set", status: remote },
  },
  {
    row: "R2 the due block shows: nothing",
    state: meetingOverStanding,
    timeline: [current],
    profile: meeting,
    expected: { kind: "nothing" },
  },
  {
    row: "R3 the standing status shows and no block is due: nothing",
    state: standing,
    timeline: [],
    profile: remote,
    expected: { kind: "nothing" },
  },
  {
    row: "R3 our restore of it shows: nothing",
    state: weWrote(endedOverStanding, remote, NOW - 500),
    timeline: [],
    profile: remote,
    expected: { kind: "nothing" },
  },
  {
    row: "R4 a block is due on an empty profile: set it, expiring at its end",
    state: userSets(standing, NOW - 30 * MIN, EMPTY),
    timeline: [current],
    profile: EMPTY,
    expected: { kind: "set", status: meeting },
  },
  {
    row: "R5 the block ended (its status expired) and none is due: restore, expiration 0",
    state: endedOverStanding,
    timeline: [],
    profile: EMPTY,
    expected: { kind: "set", status: remote },
  },
  {
    row: "R5 the service has not swept the expired status yet: restore all the same",
    state: endedOverStanding,
    timeline: [],
    profile: statusOf(ended),
    expected: { kind: "set", status: remote },
  },
  {
    row: "R6 empty, no block, no standing status: nothing",
    state: weWrote(fresh, statusOf(ended), ended.start),
    timeline: [],
    profile: EMPTY,
    expected: { kind: "nothing" },
  },
  {
    row: "R7 our restore shows and a block is due: set the block over it",
    state: weWrote(endedOverStanding, remote, NOW - 4 * MIN),
    timeline: [current],
    profile: remote,
    expected: { kind: "set", status: meeting },
  },
  {
    row: "R7 our block shows and another is due: set it (no restore in between)",
    state: meetingOverStanding,
    timeline: [blockOf(NOW - MIN, NOW + 30 * MIN, "Planning")],
    profile: meeting,
    expected: {
      kind: "set",
      status: { ...meeting, text: "Planning", expiration: sec(NOW + 30 * MIN) },
    },
  },
  {
    row: "R8 our block is cancelled while it shows: restore instead of a clear",
    state: meetingOverStanding,
    timeline: [],
    profile: meeting,
    expected: { kind: "set", status: remote },
  },
  {
    row: "R9 our block is cancelled while it shows, no standing status: clear",
    state: weWrote(fresh, meeting, current.start),
    timeline: [],
    profile: meeting,
    expected: { kind: "clear", status: EMPTY },
  },
  {
    row: "R10 the standing status was set before the due block began: the block shows over it",
    state: standing,
    timeline: [current],
    profile: remote,
    expected: { kind: "set", status: meeting },
  },
  {
    row: "R11 the person set it while the block showed: it wins for the rest of the block",
    state: userSets(meetingOverStanding, NOW - MIN, lunch),
    timeline: [current],
    profile: lunch,
    expected: { kind: "nothing" },
  },
  {
    row: "R11 our set raced it in its second and landed after it: it is set back",
    state: weWrote(userSets(meetingOverStanding, NOW - MIN, lunch), meeting, NOW - MIN + 300),
    timeline: [current],
    profile: meeting,
    expected: { kind: "set", status: lunch, reason: "the person set it during this block" },
  },
  {
    row: "R12 a status neither ours nor the standing one is left",
    state: {
      ...meetingOverStanding,
      actual: { status: lunch, observedAt: NOW - MIN, source: "read" },
    },
    timeline: [current],
    profile: lunch,
    expected: { kind: "leave", reason: "manual status" },
  },
];

describe("restore mode: the reconciliation table", () => {
  it.each(rows)("$row", ({ state, timeline, profile, expected }) => {
    // Act: decide, reading first when asked, the read showing the profile as believed.
    const first = step(state, timeline, undefined);
    const after = first.kind === "read" ? step(state, timeline, shown(profile)) : first;
    // Assess: every write reads first; nothing else does.
    const writes = expected.kind === "set" || expected.kind === "clear";
    expect(first.kind).toBe(writes ? "read" : expected.kind);
    expect(after).toMatchObject(expected);
  });

  it("reads before every write, saying why", () => {
    // Act
    const first = step(standing, [current], undefined);
    // Assess
    expect(first).toMatchObject({
      kind: "read",
      reason: "in restore mode every write reads the profile first",
    });
  });

  it("keeps today's behaviour in keep mode: a status without expiry holds off every block", () => {
    // Act
    const overStanding = step(standing, [current], shown(remote), POLICY);
    const ended = step(endedOverStanding, [], undefined, POLICY);
    // Assess
    expect(overStanding).toMatchObject({ kind: "leave", reason: "manual override" });
    expect(ended).toMatchObject({ kind: "nothing" });
  });

  it("treats an override with no expiry stored before the standing status existed as one", () => {
    // Prepare: the item as the previous release stored it.
    const { standing: _new, ...legacy } = standing;
    // Act
    const after = step(legacy, [current], shown(remote));
    // Assess
    expect(after).toMatchObject({ kind: "set", status: meeting });
  });
});

describe("restore mode: what observations do to the standing status", () => {
  const ours = (state: StatusState) => state.standing?.status;

  it("a user_change with a status that does not expire makes it the standing one, from its second", () => {
    const after = userSets(fresh, NOW + 400, remote);
    expect(after.standing).toEqual({ status: remote, since: sec(NOW) * 1000 });
  });

  it("a user_change with a status that expires leaves the standing one as it was", () => {
    const after = userSets(standing, NOW, { ...lunch, expiration: sec(NOW + 30 * MIN) });
    expect(ours(after)).toEqual(remote);
  });

  it("the service's clear at our block's expiration keeps it", () => {
    const at = (ended.expiration + 1) * 1000;
    expect(ours(userSets(endedOverStanding, at, EMPTY))).toEqual(remote);
  });

  it("a clear by hand of the standing status empties it, from the clear's second", () => {
    expect(userSets(standing, NOW, EMPTY).standing).toEqual({ status: EMPTY, since: NOW });
  });

  it("a clear by hand of our block's status before its end empties it", () => {
    expect(ours(userSets(meetingOverStanding, NOW, EMPTY))).toEqual(EMPTY);
  });

  it("a clear in the second of our latest write keeps it: a tie the next read settles", () => {
    const restored = weWrote(endedOverStanding, remote, NOW + 100);
    expect(ours(userSets(restored, NOW + 100, EMPTY))).toEqual(remote);
  });

  it("the expiry of an override keeps it", () => {
    const over = userSets(standing, NOW - 40 * MIN, { ...lunch, expiration: sec(NOW - MIN) });
    expect(ours(userSets(over, NOW - MIN, EMPTY))).toEqual(remote);
  });

  it("the echo of our restore changes nothing", () => {
    const restored = weWrote(endedOverStanding, remote, NOW - 2_000);
    const echo = applyObservation(restored, {
      eventId: "echo",
      eventTime: sec(NOW - 2_000),
      status: remote,
    });
    expect(echo.result).toBe("ours");
    expect(echo.state.standing).toEqual(restored.standing);
  });

  it("a read finding a status that does not expire makes it the standing one, first seen then", () => {
    const read = applyRead(meetingOverStanding, lunch, NOW).state;
    // Set between our last look (the meeting's set) and the read.
    expect(read.standing).toEqual({ status: lunch, since: NOW, from: current.start });
  });

  it("a read finding the standing status still showing keeps when it was set", () => {
    expect(applyRead(standing, remote, NOW).state.standing).toEqual(standing.standing);
  });

  it("a user_change re-setting the standing status over our block makes it new again", () => {
    const again = userSets(meetingOverStanding, NOW, remote);
    expect(again.standing).toEqual({ status: remote, since: NOW });
  });

  it("a read finding the profile empty while the standing status showed empties it (a lost clear)", () => {
    expect(ours(applyRead(standing, EMPTY, NOW).state)).toEqual(EMPTY);
  });

  it("a read finding the profile empty after our block expired keeps it", () => {
    expect(ours(applyRead(endedOverStanding, EMPTY, NOW).state)).toEqual(remote);
  });

  it("a read finding our restore, or a status that expires, keeps it", () => {
    const restored = weWrote(endedOverStanding, remote, NOW - 2_000);
    const expiring = { ...lunch, expiration: sec(NOW + 30 * MIN) };
    expect(ours(applyRead(restored, remote, NOW).state)).toEqual(remote);
    expect(ours(applyRead(standing, expiring, NOW).state)).toEqual(remote);
  });
});

describe("restore mode: the wake-up at a block's end", () => {
  const later = blockOf(NOW + 60 * MIN, NOW + 90 * MIN);
  const wakeOf = (state: StatusState, timeline: Block[], mode: "keep" | "restore") =>
    withSchedule(
      { key: { team: "T1", user: "U1" }, state, version: 1, updatedAt: 0 },
      timeline,
      NOW,
      mode,
    ).rec.nextTransitionAt;

  it("wakes at the end of the block showing while a standing status is known", () => {
    expect(wakeOf(meetingOverStanding, [current, later], "restore")).toBe(current.end);
  });

  it("does not in keep mode, nor without a standing status: the next start", () => {
    expect(wakeOf(meetingOverStanding, [current, later], "keep")).toBe(later.start);
    expect(wakeOf(weWrote(fresh, meeting, current.start), [current, later], "restore")).toBe(
      later.start,
    );
  });

  it("decides with the wake-up: the restore is scheduled with the block's set", () => {
    const set = step(standing, [current, later], shown(remote));
    expect(set).toMatchObject({ kind: "set", wake: current.end });
  });
});
