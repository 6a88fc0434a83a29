import { describe, expect, it } from "vitest";
import { pollReads, pushStateOf, pushStep } from "#lib/app/push-plan";

/**
 * The lifecycle rules, restated: a channel is renewed at 80% of its lifetime (from creation to
 * expiry); it is lapsed, and recreated, when expired, after 3 failed renewals in a row, when a
 * poll found changes no push announced, or after no push for longer than its lifetime. A live
 * channel's source is read by the poll every 6 hours only.
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
    [
      "at 80% of its lifetime: renew",
      channel({ lastPushAt: T0 + 50 * H }),
      T0 + 80 * H,
      { kind: "renew" },
    ],
    [
      "expired: recreate",
      channel({ lastPushAt: T0 + 99 * H }),
      T0 + 100 * H,
      { kind: "recreate", reason: "expired" },
    ],
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

  it("no push for longer than the channel's lifetime: recreate", () => {
    // A channel whose expiry was extended (Graph PATCH) but that stayed silent all along.
    const push = channel({ expiresAt: T0 + 300 * H, createdAt: T0 + 100 * H, lastPushAt: T0 });
    expect(pushStep(push, T0 + 201 * H)).toEqual({ kind: "recreate", reason: "no_message" });
    expect(pushStep(push, T0 + 199 * H)).toEqual({ kind: "none", nextAt: T0 + 260 * H });
  });
});

describe("pollReads", () => {
  it("without a channel the poll always reads", () => {
    expect(pollReads(undefined, T0, T0 + 1)).toBe(true);
  });
  it("with a live channel only every 6 hours", () => {
    expect(pollReads(channel(), T0, T0 + 6 * H - 1)).toBe(false);
    expect(pollReads(channel(), T0, T0 + 6 * H)).toBe(true);
    expect(pollReads(channel(), undefined, T0 + 1)).toBe(true);
  });
  it("with a lapsed channel always", () => {
    expect(pollReads(channel({ failures: 3 }), T0, T0 + 1)).toBe(true);
  });
});

describe("pushStateOf", () => {
  it.each([
    ["no channel", {}, T0, { state: "none" }],
    ["live", { push: channel() }, T0 + H, { state: "live", expiresAt: T0 + 100 * H }],
    ["renewing", { push: channel() }, T0 + 81 * H, { state: "renewing", expiresAt: T0 + 100 * H }],
    ["lapsed", { push: channel() }, T0 + 101 * H, { state: "lapsed", expiresAt: T0 + 100 * H }],
    ["reconnect", { push: channel(), reconnectSince: T0 }, T0 + H, { state: "reconnect" }],
  ] as const)("%s", (_name, source, now, state) => {
    expect(pushStateOf(source, now)).toEqual(state);
  });
});
