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
    let seed = 7;
    const next = () => {
      seed = (seed * 48271) % 2147483647;
      return seed / 2147483647;
    };
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
