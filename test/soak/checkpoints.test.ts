import { describe, expect, it } from "vitest";
import { planCheckpoints, userCheckpoints } from "#bench/soak/checkpoints";
import { FULL_SHAPE, ON_TIME_MS, QUICK_SHAPE } from "#bench/soak/run";
import { type CalendarEvent, generateScenario, type UserPlan } from "#bench/soak/scenario";

const at = (hhmm: string) => Date.parse(`2026-03-09T${hhmm}:00Z`);
const LATE = 3 * 60_000;
const window = { from: at("08:00"), until: at("12:00"), lateMs: LATE };

const event = (uid: string, from: string, to: string): CalendarEvent => ({
  uid,
  title: "Planning",
  start: at(from),
  end: at(to),
  sequence: 0,
  cancelled: false,
});

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

describe("soak checkpoints", () => {
  it("reads the profile the lateness after each change, where the status then holds that long", () => {
    // Prepare: a 2-minute gap between meetings is too short to read fairly.
    const user: UserPlan = {
      id: "U0001",
      tz: "UTC",
      events: [event("a", "09:00", "09:30"), event("b", "09:32", "10:00")],
      edits: [],
      ooo: [],
    };
    // Act
    const points = userCheckpoints(user, window);
    // Assess
    expect(points.map((p) => [hhmm(p.at), p.expected.text, p.kind])).toEqual([
      ["08:03", "", "calendar"],
      ["09:03", "In a meeting", "calendar"],
      ["09:35", "In a meeting", "calendar"],
      ["10:03", "", "calendar"],
    ]);
  });

  it("reads nothing while a manual status stands, then the first block start after its clear", () => {
    // Prepare: a status without expiration from 09:10 to its clear at 09:40, during a meeting.
    const user: UserPlan = {
      id: "U0001",
      tz: "UTC",
      events: [event("a", "09:00", "10:00"), event("b", "10:30", "11:00")],
      edits: [],
      ooo: [],
      manual: {
        at: at("09:10"),
        status: { text: "Lunch", emoji: ":sandwich:", expiration: 0 },
        clearAt: at("09:40"),
        loseClearEvent: true,
      },
    };
    // Act
    const points = userCheckpoints(user, window);
    // Assess
    expect(points.map((p) => [hhmm(p.at), p.expected.text, p.kind])).toEqual([
      ["08:03", "", "calendar"],
      ["09:03", "In a meeting", "calendar"],
      ["10:33", "In a meeting", "after-manual"],
      ["11:03", "", "calendar"],
    ]);
  });

  it("plans the generated full and quick days without an ambiguous instant, every user checked", () => {
    for (const shape of [QUICK_SHAPE, FULL_SHAPE]) {
      // Prepare
      const scenario = generateScenario(shape);
      // Act
      const points = planCheckpoints(scenario.users, {
        from: shape.dayStart,
        until: shape.faultsOffAt + shape.settleMs,
        lateMs: ON_TIME_MS,
      });
      // Assess
      expect(new Set(points.map((p) => p.user)).size).toBe(scenario.users.length);
      expect(points.some((p) => p.kind === "after-manual")).toBe(true);
      const texts = new Set(points.map((p) => p.expected.text.replace(/ until .*/, "")));
      expect([...texts].sort()).toEqual(["", "Focus time", "In a meeting", "Out of office"]);
    }
  });
});
