import { describe, expect, it } from "vitest";
import { nextUpkeepAt, pushStateOf, pushStep, upkeepOverdue } from "#lib/app/push/plan";

/**
 * The lifecycle rules, restated: a channel is renewed at 80% of its lifetime (from creation to
 * expiry); it is lapsed, and recreated, when expired, after 3 failed renewals in a row, or when
 * a poll found changes no push announced; silence alone is not a lapse. (Which
 * poll visits read a live channel's source, every 6 hours only: poll-choice.test.ts.)
 */
const H = 3_600_000;
const T0 = 1_000 * H;
/** A seeded Lehmer generator: the same draws every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 48271) % 2147483647;
    return state / 2147483647;
  };
}
const channel = (over = {}) => ({
  channelId: "c",
  createdAt: T0,
  expiresAt: T0 + 100 * H,
  ...over,
});

describe("pushStep", () => {
  it.each([
    ["no channel: create", undefined, T0, { kind: "create" }],
    [
      "young channel: nothing until 80%",
      channel(),
      T0 + 79 * H,
      { kind: "none", nextAt: T0 + 80 * H },
    ],
    ["at 80% of its lifetime: renew", channel(), T0 + 80 * H, { kind: "renew" }],
    ["expired: recreate", channel(), T0 + 100 * H, { kind: "recreate", reason: "expired" }],
    ["two failed renewals: renew again", channel({ failures: 2 }), T0 + 85 * H, { kind: "renew" }],
    [
      "three failed renewals: recreate",
      channel({ failures: 3 }),
      T0 + 10 * H,
      { kind: "recreate", reason: "renewal_failed" },
    ],
    [
      "changes no push announced: recreate",
      channel({ silentSince: T0 + 5 * H }),
      T0 + 6 * H,
      { kind: "recreate", reason: "silent" },
    ],
  ] as const)("%s", (_name, push, now, step) => {
    expect(pushStep(push, now)).toEqual(step);
  });

  it("silence alone is no lapse: a calendar nobody edits sends nothing for days", () => {
    // Renewed (Graph PATCH) twice without a push in between: still alive, renewed on time.
    const push = channel({ expiresAt: T0 + 300 * H, createdAt: T0 + 100 * H });
    expect(pushStep(push, T0 + 201 * H)).toEqual({ kind: "none", nextAt: T0 + 260 * H });
    expect(pushStep(push, T0 + 260 * H)).toEqual({ kind: "renew" });
  });
});

describe("pushStateOf", () => {
  it.each([
    ["no channel", {}, T0, { state: "none" }],
    ["live", { push: channel() }, T0 + H, { state: "live", expiresAt: T0 + 100 * H }],
    ["renewing", { push: channel() }, T0 + 81 * H, { state: "renewing", expiresAt: T0 + 100 * H }],
    ["lapsed", { push: channel() }, T0 + 101 * H, { state: "lapsed", expiresAt: T0 + 100 * H }],
    ["reconnect", { push: channel(), reconnectSince: T0 }, T0 + H, { state: "reconnect" }],
    [
      "renewals failing, still alive",
      { push: channel({ failures: 3 }) },
      T0 + 85 * H,
      { state: "renewing", expiresAt: T0 + 100 * H },
    ],
  ] as const)("%s", (_name, source, now, state) => {
    expect(pushStateOf(source, now)).toEqual(state);
  });
});

/**
 * The upkeep's schedule, restated: after a success (no failure in a row) the next upkeep is the
 * renewal at 80% of the channel's lifetime, or now when the channel needs work already; after
 * 1, 2, 3 or more failures in a row it waits 15 minutes, 1 hour, then 3 hours each time, but
 * never past a live channel's expiry (there it lapses and is recreated); a lapsed channel, or
 * none, is retried every 15 minutes.
 */
describe("nextUpkeepAt", () => {
  const M = 60_000;
  it.each([
    ["a new channel: its renewal at 80%", channel(), 0, T0, T0 + 80 * H],
    [
      "renewed just now (a 10 h channel): at 8 h",
      channel({ expiresAt: T0 + 10 * H }),
      0,
      T0,
      T0 + 8 * H,
    ],
    ["past its renewal and no failure: now", channel(), 0, T0 + 90 * H, T0 + 90 * H],
    ["no channel, no failure: now", undefined, 0, T0, T0],
    ["1 failure: 15 minutes later", channel(), 1, T0 + 80 * H, T0 + 80 * H + 15 * M],
    ["2 failures: 1 hour later", channel(), 2, T0 + 80 * H, T0 + 81 * H],
    ["3 failures: 3 hours later", channel(), 3, T0 + 80 * H, T0 + 83 * H],
    ["7 failures: still 3 hours later", channel(), 7, T0 + 10 * H, T0 + 13 * H],
    ["a retry never waits past the expiry", channel(), 3, T0 + 99 * H, T0 + 100 * H],
    [
      "an expired channel: retried 15 minutes later",
      channel(),
      2,
      T0 + 101 * H,
      T0 + 101 * H + 15 * M,
    ],
    [
      "three failed renewals of a channel still alive: 3 hours",
      channel({ failures: 3 }),
      3,
      T0 + 85 * H,
      T0 + 88 * H,
    ],
    ["no channel yet, 2 failures: 15 minutes later", undefined, 2, T0, T0 + 15 * M],
  ] as const)("%s", (_name, push, failures, now, at) => {
    expect(nextUpkeepAt(push, failures, now)).toBe(at);
  });

  it("over random channels, a success schedules the renewal at 80%, a retry within its wait", () => {
    const next = seeded(7);
    for (let i = 0; i < 500; i++) {
      const lifetime = Math.floor(1 + next() * 200) * H;
      const createdAt = T0 + Math.floor(next() * 100) * H;
      const push = { channelId: "c", createdAt, expiresAt: createdAt + lifetime };
      const renewal = createdAt + Math.floor(lifetime * 0.8);
      expect(nextUpkeepAt(push, 0, createdAt)).toBe(renewal);
      const failures = 1 + Math.floor(next() * 5);
      const now = createdAt + Math.floor(next() * lifetime);
      const wait = [15 * M, H, 3 * H][Math.min(failures, 3) - 1] ?? 0;
      expect(nextUpkeepAt(push, failures, now)).toBe(Math.min(now + wait, createdAt + lifetime));
    }
  });
});

describe("upkeepOverdue (the poll's safety check)", () => {
  it("no channel, or a lapsed one: overdue", () => {
    expect(upkeepOverdue(undefined, T0)).toBe(true);
    expect(upkeepOverdue(channel({ silentSince: T0 }), T0 + H)).toBe(true);
    expect(upkeepOverdue(channel(), T0 + 100 * H)).toBe(true);
  });
  it("a live channel only once halfway from its renewal (80%) to its expiry (90%)", () => {
    expect(upkeepOverdue(channel(), T0 + 80 * H)).toBe(false);
    expect(upkeepOverdue(channel(), T0 + 90 * H - 1)).toBe(false);
    expect(upkeepOverdue(channel(), T0 + 90 * H)).toBe(true);
  });
});

/**
 * A lifetime the provider granted shorter than asked, restated: the renewal comes at 80% of it,
 * or earlier to leave 30 s before the expiry, but never in the first half of its life.
 */
describe("the renewal of a channel granted a short lifetime", () => {
  const S = 1000;
  it.each([
    ["7 days: at 80%", 7 * 24 * H, Math.floor(7 * 24 * H * 0.8)],
    ["150 s: at 80%, 30 s before the expiry", 150 * S, 120 * S],
    ["90 s: 30 s before the expiry, not at 72 s", 90 * S, 60 * S],
    ["40 s: halfway, not at once", 40 * S, 20 * S],
  ] as const)("%s", (_name, lifetime, after) => {
    const push = channel({ expiresAt: T0 + lifetime });
    expect(pushStep(push, T0)).toEqual({ kind: "none", nextAt: T0 + after });
    expect(nextUpkeepAt(push, 0, T0)).toBe(T0 + after);
    expect(pushStep(push, T0 + after)).toEqual({ kind: "renew" });
  });

  it("over random lifetimes, the renewal leaves min(30 s, half the life) and is no later than 80%", () => {
    const next = seeded(11);
    for (let i = 0; i < 500; i++) {
      const lifetime = 1 + Math.floor(next() * 10 * 60 * S);
      const push = channel({ expiresAt: T0 + lifetime });
      const renewal = nextUpkeepAt(push, 0, T0) - T0;
      expect(renewal).toBeLessThanOrEqual(lifetime * 0.8);
      expect(renewal).toBeGreaterThanOrEqual(Math.floor(lifetime / 2));
      expect(lifetime - renewal).toBeGreaterThanOrEqual(Math.min(30 * S, Math.ceil(lifetime / 2)));
    }
  });
});
