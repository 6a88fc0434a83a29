import { describe, expect, it } from "vitest";
import { type CheckInput, checkInvariants, requiredViolations } from "../../bench/soak/checks";
import type { ServiceCall } from "../../bench/soak/harness";
import type { Scenario, UserPlan } from "../../bench/soak/scenario";

const MIN = 60_000;
const T0 = Date.UTC(2026, 2, 9, 9, 0);

const meeting = { text: "In a meeting", emoji: ":spiral_calendar_pad:" };

const user: UserPlan = {
  id: "U0001",
  tz: "UTC",
  events: [
    {
      uid: "m1",
      title: "Standup",
      start: T0,
      end: T0 + 30 * MIN,
      sequence: 0,
      cancelled: false,
    },
  ],
  edits: [],
  ooo: [],
};

const scenario: Scenario = {
  shape: {
    users: 1,
    seed: 1,
    dayStart: T0 - 60 * MIN,
    faultsOffAt: T0 + 60 * MIN,
    settleMs: 10 * MIN,
  },
  team: "T0SOAK",
  users: [user],
  crash: { user: "U0001", after: T0 },
};

let order = 0;
const call = (
  at: number,
  text: string,
  emoji: string,
  expiration: number,
  outcome = "ok",
): ServiceCall => {
  order += 1;
  return {
    seq: order,
    at,
    method: "users.profile.set",
    user: "U0001",
    raw: { text, emoji, expiration },
    status: { text, emoji, expiration },
    outcome,
    order,
  };
};

const base = (calls: ServiceCall[], over: Partial<CheckInput> = {}): CheckInput => ({
  scenario,
  calls,
  events: [],
  manual: [],
  probes: [],
  final: { at: T0 + 70 * MIN, profiles: { U0001: { text: "", emoji: "", expiration: 0 } } },
  deadLettered: 0,
  ...over,
});

const endS = (T0 + 30 * MIN) / 1000;

describe("soak invariant checks", () => {
  it("finds nothing wrong in one set at the meeting's start that expires at its end", () => {
    // Act
    const result = checkInvariants(base([call(T0, meeting.text, meeting.emoji, endS)]));
    // Assess
    expect(result.halfClears).toEqual([]);
    expect(result.setsWithoutFutureExpiration).toEqual([]);
    expect(result.doubleWrites).toEqual([]);
    expect(result.diverged).toEqual([]);
  });

  it("counts a request that empties the text but not the emoji as a half-clear", () => {
    // Act
    const result = checkInvariants(base([call(T0, "", meeting.emoji, 0, "must_clear_both")]));
    // Assess
    expect(result.halfClears).toHaveLength(1);
  });

  it("counts a set whose expiration is not in the future", () => {
    // Act
    const result = checkInvariants(base([call(T0, meeting.text, meeting.emoji, T0 / 1000)]));
    // Assess
    expect(result.setsWithoutFutureExpiration).toHaveLength(1);
  });

  it("counts two different successful sets with no transition between them as a double write", () => {
    // Act
    const result = checkInvariants(
      base([
        call(T0 + MIN, meeting.text, meeting.emoji, endS),
        call(T0 + 2 * MIN, "Focus time", ":headphones:", endS),
      ]),
    );
    // Assess
    expect(result.doubleWrites).toHaveLength(1);
  });

  it("counts an overwrite of a manual status the system was told about, and a blind one apart, both failing the run", () => {
    // Prepare
    const lunch = { text: "Lunch", emoji: ":sandwich:", expiration: (T0 + 50 * MIN) / 1000 };
    const manual = [
      {
        user: "U0001",
        at: T0 - 5 * MIN,
        order: 100,
        kind: "set" as const,
        status: lunch,
        ok: true,
      },
    ];
    const write = { ...call(T0, meeting.text, meeting.emoji, endS), order: 102 };
    const told = [
      {
        at: T0 - 5 * MIN,
        eventId: "Ev1",
        user: "U0001",
        status: lunch,
        statusCode: 200,
        order: 101,
      },
    ];
    // Act
    const knew = checkInvariants(base([write], { manual, events: told }));
    const blind = checkInvariants(base([write], { manual, events: [] }));
    // Assess
    expect(knew.manualOverwritten).toHaveLength(1);
    expect(blind.manualOverwritten).toEqual([]);
    expect(blind.blindOverwrites).toHaveLength(1);
    expect(requiredViolations(knew).map((v) => v.check)).toEqual(["manual status overwritten"]);
    expect(requiredViolations(blind).map((v) => v.check)).toEqual([
      "manual status overwritten (user_change lost)",
    ]);
  });

  it("reports a user whose profile still shows a finished block's status as diverged", () => {
    // Prepare
    const stale = { text: meeting.text, emoji: meeting.emoji, expiration: 0 };
    // Act
    const result = checkInvariants(
      base([], { final: { at: T0 + 70 * MIN, profiles: { U0001: stale } } }),
    );
    // Assess
    expect(result.diverged).toHaveLength(1);
  });

  it("reports out-of-office blocks that never showed or showed late", () => {
    // Act
    const result = checkInvariants(
      base([], {
        probes: [
          { user: "U0001", start: T0, shown: false, onTime: false, latencyMs: undefined },
          { user: "U0001", start: T0, shown: true, onTime: false, latencyMs: 400_000 },
        ],
      }),
    );
    // Assess
    expect(result.oooMissed).toHaveLength(1);
    expect(result.oooLate).toHaveLength(1);
  });
});
