import { describe, expect, it } from "vitest";
import { decide, type ReconcilePolicy } from "#lib/core/reconcile/decision";
import { claimWrite, initialStatusState, type ProfileRead } from "#lib/core/reconcile/state";
import { applyObservation } from "#lib/core/reconcile/user-change";
import { withSchedule } from "#lib/core/reconcile/wake-up";
import { recordWrite } from "#lib/core/reconcile/write-outcome";
import type { StatusState } from "#lib/core/records";
import type { Block, StatusValue } from "#lib/core/types";

/*
 * decide() without DynamoDB: one table row per rule of reconciliation. States are built with the
 * same transitions the reconciler applies (an observed event, a recorded write, a claim), and
 * each expectation restates the rule in the row's name.
 */

const MIN = 60_000;
const NOW = Date.UTC(2025, 2, 3, 9, 0, 0);
const sec = (ms: number): number => Math.floor(ms / 1000);

const meeting = (start: number, end: number): Block => ({
  start,
  end,
  kind: "meeting",
  text: "In a meeting",
  emoji: ":calendar:",
  expiration: sec(end),
});
/** A meeting running from 5 minutes ago to 25 minutes from now. */
const current = meeting(NOW - 5 * MIN, NOW + 25 * MIN);
const meetingStatus: StatusValue = {
  text: "In a meeting",
  emoji: ":calendar:",
  expiration: sec(current.end),
};
const lunch: StatusValue = { text: "Lunch", emoji: ":sandwich:", expiration: 0 };
const EMPTY: StatusValue = { text: "", emoji: "", expiration: 0 };

const POLICY: ReconcilePolicy = {
  paused: false,
  leaseMs: 30_000,
  verifyBeforeWrite: false,
  inFlightRecheckMs: 1_000,
};
const VERIFY: ReconcilePolicy = { ...POLICY, verifyBeforeWrite: true };

const fresh = initialStatusState();
/** We wrote the meeting's status 5 minutes ago and the service confirmed it. */
const written = recordWrite(fresh, meetingStatus, NOW - 5 * MIN + 200, NOW - 5 * MIN);
/** The user set "Lunch" themselves, reported by an event at `at`. */
const userSet = (state: StatusState, at: number, status = lunch): StatusState =>
  applyObservation(state, { eventId: `manual-${at}`, eventTime: sec(at), status }).state;
const shown = (status: StatusValue, at = NOW): ProfileRead => ({ kind: "shown", status, at });

/**
 * The decision for `state`, stored with its wake-up up to date (so `changed` says whether the
 * state changed), with `desired` the only block: its status step, flattened with `changed` and
 * the state the step acts on.
 */
function plan(
  state: StatusState,
  desired: Block | undefined,
  read: ProfileRead | undefined,
  now: number,
  policy: ReconcilePolicy,
) {
  const timeline = desired === undefined ? [] : [desired];
  const stored = { key: { team: "T1", user: "U1" }, state, version: 1, updatedAt: 0 };
  const record = withSchedule(stored, timeline, now).rec;
  const decision = decide({ record, timeline, now, policy, ...(read ? { read } : {}) });
  return { ...decision.status, changed: decision.changed, state: decision.record.state };
}

interface Row {
  rule: string;
  state: StatusState;
  desired: Block | undefined;
  read?: ProfileRead;
  policy?: ReconcilePolicy;
  expected: Record<string, unknown>;
}

const rows: Row[] = [
  // ---- write ----------------------------------------------------------------------------
  {
    rule: "a block showing on an empty profile is written (set, expiring at the block's end)",
    state: fresh,
    desired: current,
    expected: { kind: "set", status: meetingStatus },
  },
  {
    rule: "our status whose block was cancelled is cleared (text and emoji empty, no expiration)",
    state: written,
    desired: undefined,
    expected: { kind: "clear", status: EMPTY },
  },
  {
    rule: "a manual status that has expired no longer stands: the block is written",
    state: userSet(fresh, NOW - 10 * MIN, { ...lunch, expiration: sec(NOW - MIN) }),
    desired: current,
    expected: { kind: "set", status: meetingStatus },
  },
  {
    rule: "our status whose expiration passed counts as cleared: the next block is written",
    state: recordWrite(fresh, { ...meetingStatus, expiration: sec(NOW - MIN) }, NOW - 30 * MIN),
    desired: current,
    expected: { kind: "set", status: meetingStatus },
  },
  {
    rule: "a claim past its lease no longer blocks a write",
    state: claimWrite(fresh, meetingStatus, NOW - MIN),
    desired: current,
    expected: { kind: "set", status: meetingStatus },
  },
  {
    rule: "a retry whose time has passed lets the write go ahead",
    state: { ...fresh, retry: { attempt: 2, at: NOW - 1, code: "rate_limited" } },
    desired: current,
    expected: { kind: "set", status: meetingStatus },
  },
  {
    rule: "a read that fails without an answer leaves the write to what events said",
    state: fresh,
    desired: current,
    read: { kind: "unavailable" },
    policy: VERIFY,
    expected: { kind: "set", status: meetingStatus },
  },
  // ---- read first ---------------------------------------------------------------------------
  {
    rule: "with verifyBeforeWrite every write reads the profile first",
    state: fresh,
    desired: current,
    policy: VERIFY,
    expected: { kind: "read" },
  },
  {
    rule: "an override seen before the current block began may have been cleared unseen: read",
    state: userSet(fresh, NOW - 2 * 60 * MIN),
    desired: current,
    expected: { kind: "read" },
  },
  {
    rule: "a user's change in the same second as our write may be older or newer: read",
    state: applyObservation(recordWrite(fresh, meetingStatus, NOW - 1_500, NOW - 1_800), {
      eventId: "tie",
      eventTime: sec(NOW - 1_800),
      status: EMPTY,
    }).state,
    desired: current,
    expected: { kind: "read" },
  },
  // ---- after a read ---------------------------------------------------------------------------
  {
    rule: "a read that shows an empty profile ends the override whose clear was lost: write",
    state: userSet(fresh, NOW - 2 * 60 * MIN),
    desired: current,
    read: shown(EMPTY),
    expected: { kind: "set", status: meetingStatus, found: "override_gone" },
  },
  {
    rule: "a read that still shows the override leaves it, and keeps the read",
    state: userSet(fresh, NOW - 2 * 60 * MIN),
    desired: current,
    read: shown(lunch),
    expected: { kind: "leave", reason: "manual override", changed: true },
  },
  {
    rule: "a read that finds a manual status no event reported leaves it",
    state: fresh,
    desired: current,
    read: shown(lunch),
    policy: VERIFY,
    expected: { kind: "leave", changed: true, found: "manual_found" },
  },
  {
    rule: "a read that shows our write won the same-second tie finds nothing to do",
    state: applyObservation(recordWrite(fresh, meetingStatus, NOW - 1_500, NOW - 1_800), {
      eventId: "tie",
      eventTime: sec(NOW - 1_800),
      status: EMPTY,
    }).state,
    desired: current,
    read: shown(meetingStatus),
    expected: { kind: "nothing", changed: true },
  },
  // ---- leave ------------------------------------------------------------------------------------
  {
    rule: "a manual status set during the current block stands, without a read",
    state: userSet(written, NOW - MIN),
    desired: current,
    policy: VERIFY,
    expected: { kind: "leave", reason: "manual override", changed: false },
  },
  {
    rule: "a paused user is never written",
    state: fresh,
    desired: current,
    policy: { ...VERIFY, paused: true },
    expected: { kind: "leave", reason: "paused", changed: false },
  },
  {
    rule: "a status the service refused is not sent again, nor read for",
    state: { ...fresh, rejected: { status: meetingStatus, code: "invalid_emoji", at: NOW - MIN } },
    desired: current,
    policy: VERIFY,
    expected: { kind: "leave", reason: "the service refused this status (invalid_emoji)" },
  },
  // ---- needs reauth -------------------------------------------------------------------------------
  {
    rule: "a user who must authorise again is stopped, whatever is due",
    state: { ...fresh, needsReauth: { code: "token_revoked", at: NOW - MIN } },
    desired: current,
    expected: { kind: "needs_reauth", code: "token_revoked" },
  },
  // ---- nothing ------------------------------------------------------------------------------------
  {
    rule: "the profile already shows the block: nothing to do",
    state: written,
    desired: current,
    policy: VERIFY,
    expected: { kind: "nothing", changed: false },
  },
  {
    rule: "a block ending within the current second is not written (it would expire on arrival)",
    state: fresh,
    desired: meeting(NOW - MIN, NOW + 400),
    expected: { kind: "nothing", changed: false },
  },
  {
    rule: "the write in flight is what is due: nothing more",
    state: claimWrite(fresh, meetingStatus, NOW - 1_000),
    desired: current,
    expected: { kind: "nothing", changed: false },
  },
  // ---- wait ----------------------------------------------------------------------------------------
  {
    rule: "something else due while a write is in flight is looked at again shortly (queued)",
    state: claimWrite(fresh, meetingStatus, NOW - 200),
    desired: undefined,
    expected: {
      kind: "wait",
      at: NOW + 1_000,
      code: "write_in_flight",
      enqueue: true,
      changed: true,
    },
  },
  {
    rule: "a write deferred by the rate budget waits for its slot, even when asked sooner",
    state: { ...fresh, retry: { attempt: 0, at: NOW + 5_000, code: "rate_budget" } },
    desired: current,
    policy: VERIFY,
    expected: { kind: "wait", at: NOW + 5_000, code: "rate_budget", enqueue: false },
  },
  {
    rule: "a write backing off after a failure waits for its retry time",
    state: { ...written, retry: { attempt: 3, at: NOW + 40_000, code: "rate_limited" } },
    desired: undefined,
    expected: { kind: "wait", at: NOW + 40_000, code: "rate_limited", changed: false },
  },
];

describe("decide", () => {
  it.each(rows)("$rule", ({ state, desired, read, policy, expected }) => {
    // Act
    const step = plan(state, desired, read, NOW, policy ?? POLICY);
    // Assess
    expect(step).toMatchObject(expected);
  });

  it("marks the write in flight for a recheck once, and only stores the mark the first time", () => {
    // Prepare
    const claimed = claimWrite(fresh, meetingStatus, NOW - 200);
    // Act
    const first = plan(claimed, undefined, undefined, NOW, POLICY);
    const marked = first.kind === "wait" ? first.state : claimed;
    const second = plan(marked, undefined, undefined, NOW + 100, POLICY);
    // Assess
    expect(marked.pending).toEqual({ status: meetingStatus, claimedAt: NOW - 200, recheck: true });
    expect(second).toMatchObject({ kind: "wait", code: "write_in_flight", changed: false });
  });

  it("drops a retry whose time has passed when nothing is due, and stores that", () => {
    // Prepare
    const state = { ...written, retry: { attempt: 2, at: NOW - 1, code: "timeout" } };
    // Act
    const step = plan(state, current, undefined, NOW, POLICY);
    // Assess
    expect(step).toMatchObject({ kind: "nothing", changed: true });
    expect(step.kind === "nothing" ? step.state : fresh).not.toHaveProperty("retry");
  });

  it("keeps a passed retry on a write it lets through: its attempt count paces the backoff", () => {
    // Prepare
    const retry = { attempt: 2, at: NOW - 1, code: "timeout" };
    // Act
    const step = plan({ ...fresh, retry }, current, undefined, NOW, POLICY);
    // Assess
    expect(step.kind === "set" && step.state.retry).toEqual(retry);
  });

  it("records the read in the state it writes from, so its claim is stored with it", () => {
    // Act
    const step = plan(fresh, current, shown(EMPTY, NOW + 50), NOW, VERIFY);
    // Assess
    expect(step.kind === "set" && step.state.actual).toEqual({
      status: EMPTY,
      observedAt: NOW + 50,
      source: "read",
    });
  });

  it("stores a record whose wake-up moved though its state did not, and only then", () => {
    // Prepare: nothing shows or is due now; a meeting starts in an hour.
    const later = meeting(NOW + 60 * MIN, NOW + 90 * MIN);
    const record = { key: { team: "T1", user: "U1" }, state: fresh, version: 1, updatedAt: 0 };
    // Act
    const moved = decide({ record, timeline: [later], now: NOW, policy: POLICY });
    const again = decide({ record: moved.record, timeline: [later], now: NOW, policy: POLICY });
    // Assess
    expect(moved.status.kind).toBe("nothing");
    expect(moved.desired).toBeUndefined();
    expect(moved.record.state).toBe(fresh);
    expect(moved).toMatchObject({ changed: true, record: { nextTransitionAt: later.start } });
    expect(again.changed).toBe(false);
  });

  it("claims the write it gives on the record to store: at the claim instant, else now", () => {
    // Prepare: the meeting is due and nothing shows; a write of ours timed out a minute ago.
    const failed = { ...fresh, attempts: [{ status: lunch, sentAt: NOW - MIN }] };
    const record = { key: { team: "T1", user: "U1" }, state: failed, version: 3, updatedAt: 0 };
    const situation = { record, timeline: [current], now: NOW, policy: POLICY };
    // Act
    const direct = decide(situation);
    const afterRead = decide({ ...situation, read: shown(EMPTY), claimAt: NOW + 70 });
    // Assess: stored with its claim, so another reconcile sees the write in flight.
    expect(direct.status).toMatchObject({ kind: "set", status: meetingStatus });
    expect(direct.changed).toBe(true);
    expect(direct.record.state.pending).toEqual({ status: meetingStatus, claimedAt: NOW });
    expect(direct.record.state.attempts).toEqual(failed.attempts);
    expect(afterRead.record.state.pending).toEqual({ status: meetingStatus, claimedAt: NOW + 70 });
  });

  it("claims nothing when it sends nothing", () => {
    // Act
    const record = { key: { team: "T1", user: "U1" }, state: written, version: 3, updatedAt: 0 };
    const d = decide({ record, timeline: [current], now: NOW, policy: POLICY });
    // Assess
    expect(d.status.kind).toBe("nothing");
    expect(d.record.state.pending).toBeUndefined();
  });

  it("says which block is due now, and why it reads first", () => {
    // Act
    const d = decide({
      record: {
        key: { team: "T1", user: "U1" },
        state: userSet(fresh, NOW - 2 * 60 * MIN),
        version: 1,
        updatedAt: 0,
      },
      timeline: [current],
      now: NOW,
      policy: POLICY,
    });
    // Assess
    expect(d.desired).toEqual(current);
    expect(d.status).toEqual({ kind: "read", reason: "a manual override stands that may be gone" });
    expect(plan(fresh, current, undefined, NOW, VERIFY)).toMatchObject({
      kind: "read",
      reason: "every write reads the profile first",
    });
  });

  it("never asks for a second read once it has one", () => {
    // Prepare: every state above that asks for a read, given an answer.
    const asking = rows.filter(
      (r) => plan(r.state, r.desired, undefined, NOW, r.policy ?? POLICY).kind === "read",
    );
    // Act
    const kinds = asking.flatMap((r) => [
      plan(r.state, r.desired, shown(EMPTY), NOW, r.policy ?? POLICY).kind,
      plan(r.state, r.desired, shown(lunch), NOW, r.policy ?? POLICY).kind,
      plan(r.state, r.desired, { kind: "unavailable" }, NOW, r.policy ?? POLICY).kind,
    ]);
    // Assess
    expect(asking.length).toBeGreaterThan(2);
    expect(kinds).not.toContain("read");
  });
});
