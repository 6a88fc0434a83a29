import { describe, expect, it } from "vitest";
import { initialStatusState } from "#lib/core/reconcile/state";
import { withSchedule } from "#lib/core/reconcile/wake-up";
import type { StatusRecord, StatusState } from "#lib/core/records";
import type { Block } from "#lib/core/types";

/*
 * When the reconcile wakes a user next: the next block start, the end of a manual override or a
 * retry, whichever is first; while stopped, only the deletion after an uninstall. Each
 * expectation is the instant the row names, worked out by hand.
 */

const MIN = 60_000;
const NOW = Date.UTC(2025, 2, 3, 9, 0, 0);
const sec = (ms: number): number => Math.floor(ms / 1000);

const blockOf = (start: number, end: number, kind: Block["kind"] = "meeting"): Block => ({
  start,
  end,
  kind,
  text: kind,
  emoji: ":x:",
  expiration: sec(end),
});
/** A block running now, and one starting in 30 minutes. */
const timeline = [blockOf(NOW - 5 * MIN, NOW + 10 * MIN), blockOf(NOW + 30 * MIN, NOW + 60 * MIN)];
const recordOf = (state: StatusState, stored: Partial<StatusRecord> = {}): StatusRecord => ({
  key: { team: "T1", user: "U1" },
  state,
  version: 1,
  updatedAt: 0,
  ...stored,
});
const lunchUntil = (at: number) => ({
  status: { text: "Lunch", emoji: ":taco:", expiration: sec(at) },
  since: NOW - MIN,
});

describe("withSchedule", () => {
  it("wakes at the next block start, not at the end of the block showing", () => {
    const { rec } = withSchedule(recordOf(initialStatusState()), timeline, NOW);
    expect(rec.nextTransitionAt).toBe(NOW + 30 * MIN);
    expect(rec.nextIsOoo).toBe(false);
  });

  it("wakes at the end of a manual override that ends before the next block", () => {
    const state = { ...initialStatusState(), override: lunchUntil(NOW + 20 * MIN) };
    expect(withSchedule(recordOf(state), timeline, NOW).rec.nextTransitionAt).toBe(NOW + 20 * MIN);
  });

  it("wakes at the end of a manual override when no block is ahead", () => {
    const state = { ...initialStatusState(), override: lunchUntil(NOW + 20 * MIN) };
    expect(withSchedule(recordOf(state), [], NOW).rec.nextTransitionAt).toBe(NOW + 20 * MIN);
  });

  it("takes no wake-up from an override without expiry, or one already over", () => {
    const forever = { ...lunchUntil(NOW), status: { ...lunchUntil(NOW).status, expiration: 0 } };
    const never = { ...initialStatusState(), override: forever };
    const over = { ...initialStatusState(), override: lunchUntil(NOW - MIN) };
    expect(withSchedule(recordOf(never), timeline, NOW).rec.nextTransitionAt).toBe(NOW + 30 * MIN);
    expect(withSchedule(recordOf(over), [], NOW).rec).not.toHaveProperty("nextTransitionAt");
  });

  it("wakes at a retry that comes before the next block, and not at one that has passed", () => {
    const soon = { ...initialStatusState(), retry: { attempt: 1, at: NOW + 5_000, code: "x" } };
    const past = { ...initialStatusState(), retry: { attempt: 1, at: NOW - 5_000, code: "x" } };
    expect(withSchedule(recordOf(soon), timeline, NOW).rec.nextTransitionAt).toBe(NOW + 5_000);
    expect(withSchedule(recordOf(past), timeline, NOW).rec.nextTransitionAt).toBe(NOW + 30 * MIN);
  });

  it("wakes a stopped user only for the deletion after an uninstall", () => {
    const stopped = { ...initialStatusState(), needsReauth: { code: "token_revoked", at: NOW } };
    const uninstalled = {
      ...initialStatusState(),
      needsReauth: { code: "app_uninstalled", at: NOW, deleteAt: NOW + 7 * 24 * 60 * MIN },
    };
    const scheduled = recordOf(stopped, { nextTransitionAt: NOW + 30 * MIN, nextIsOoo: false });
    expect(withSchedule(scheduled, timeline, NOW).rec).not.toHaveProperty("nextTransitionAt");
    expect(withSchedule(recordOf(uninstalled), timeline, NOW).rec.nextTransitionAt).toBe(
      NOW + 7 * 24 * 60 * MIN,
    );
  });

  it("marks a wake-up that starts an out-of-office block", () => {
    const ooo = [blockOf(NOW + 30 * MIN, NOW + 24 * 60 * MIN, "ooo")];
    expect(withSchedule(recordOf(initialStatusState()), ooo, NOW).rec).toMatchObject({
      nextTransitionAt: NOW + 30 * MIN,
      nextIsOoo: true,
    });
  });

  it("says the schedule changed only when the wake-up moved, or the record is new", () => {
    const stored = recordOf(initialStatusState(), {
      nextTransitionAt: NOW + 30 * MIN,
      nextIsOoo: false,
    });
    expect(withSchedule(stored, timeline, NOW).changed).toBe(false);
    expect(withSchedule({ ...stored, version: 0 }, timeline, NOW).changed).toBe(true);
    expect(withSchedule(stored, [], NOW).changed).toBe(true);
    expect(withSchedule({ ...stored, nextIsOoo: true }, timeline, NOW).changed).toBe(true);
  });
});
