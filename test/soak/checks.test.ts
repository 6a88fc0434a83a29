import { describe, expect, it } from "vitest";
import type { Checkpoint } from "#bench/soak/checkpoints";
import { type CheckInput, checkInvariants, requiredViolations } from "#bench/soak/checks";
import type { ServiceCall } from "#bench/soak/harness";
import type { Scenario, UserPlan } from "#bench/soak/scenario";

const MIN = 60_000;
const T0 = Date.UTC(2026, 2, 9, 9, 0);

const meeting = { text: "In a meeting", emoji: ":spiral_calendar_pad:" };
const focusStatus = { text: "Focus time", emoji: ":headphones:" };

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
  method = "users.profile.set",
): ServiceCall => {
  order += 1;
  return {
    seq: order,
    at,
    method,
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

  it("counts an overwrite of a manual status without expiration until the user clears it", () => {
    // Prepare
    const lasting = { text: "Lunch", emoji: ":sandwich:", expiration: 0 };
    const manual = [
      {
        user: "U0001",
        at: T0 - 5 * MIN,
        order: 100,
        kind: "set" as const,
        status: lasting,
        ok: true,
      },
    ];
    const write = { ...call(T0 + 10 * MIN, meeting.text, meeting.emoji, endS), order: 101 };
    // Act
    const result = checkInvariants(base([write], { manual }));
    // Assess
    expect(result.blindOverwrites).toHaveLength(1);
  });

  describe("profile checkpoints against the oracle", () => {
    const meetingStatus = { ...meeting, expiration: endS };
    const checkpoint: Checkpoint = {
      user: "U0001",
      at: T0 + 3 * MIN,
      since: T0,
      until: T0 + 30 * MIN,
      expected: meetingStatus,
      kind: "calendar",
    };

    it("passes a checkpoint whose profile shows the expected status, and counts one that does not", () => {
      // Act
      const right = checkInvariants(base([], { samples: [{ checkpoint, actual: meetingStatus }] }));
      const wrong = checkInvariants(
        base([], {
          samples: [{ checkpoint, actual: { ...focusStatus, expiration: endS } }],
        }),
      );
      // Assess
      expect(right.offCalendar).toEqual([]);
      expect(wrong.offCalendar).toHaveLength(1);
      expect(requiredViolations(wrong).map((v) => v.check)).toEqual([
        "profile differs from the calendar",
      ]);
    });

    it("counts a miss as late by faults only when every call since the change failed and the first write that landed was right", () => {
      // Prepare
      const failed = [
        call(T0, "", "", 0, "internal_error", "users.profile.get"),
        call(T0 + MIN, meeting.text, meeting.emoji, endS, "internal_error"),
      ];
      const sample = [{ checkpoint, actual: { text: "", emoji: "", expiration: 0 } }];
      // Act
      const late = checkInvariants(
        base([...failed, call(T0 + 5 * MIN, meeting.text, meeting.emoji, endS)], {
          samples: sample,
        }),
      );
      const wrongLater = checkInvariants(
        base([...failed, call(T0 + 5 * MIN, focusStatus.text, focusStatus.emoji, endS)], {
          samples: sample,
        }),
      );
      const noFault = checkInvariants(
        base([call(T0 + 5 * MIN, meeting.text, meeting.emoji, endS)], { samples: sample }),
      );
      // Assess
      expect(late.offCalendar).toEqual([]);
      expect(late.lateByFaults).toEqual({ count: 1, maxMs: 5 * MIN });
      expect(wrongLater.offCalendar).toHaveLength(1);
      expect(noFault.offCalendar).toHaveLength(1);
    });

    it("reports a first block start after a manual status apart, saying whether the clear arrived", () => {
      // Prepare
      const manualUser: UserPlan = {
        ...user,
        manual: {
          at: T0 - 40 * MIN,
          status: { text: "Lunch", emoji: ":sandwich:", expiration: 0 },
          clearAt: T0 - 20 * MIN,
          loseClearEvent: true,
        },
      };
      // Act
      const result = checkInvariants(
        base([], {
          scenario: { ...scenario, users: [manualUser] },
          samples: [
            {
              checkpoint: { ...checkpoint, kind: "after-manual" },
              actual: { text: "", emoji: "", expiration: 0 },
            },
          ],
        }),
      );
      // Assess
      expect(result.offCalendar).toEqual([]);
      expect(result.notBackAfterManual).toHaveLength(1);
      expect(result.notBackAfterManual[0]?.detail).toContain("the clear's user_change was lost");
    });
  });
});
