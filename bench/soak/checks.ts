import { sameStatus } from "../../lib/core/status-state";
import { isEmptyStatus, type StatusValue } from "../../lib/core/types";
import type { EventHandled, ServiceCall } from "./harness";
import { changeInstants, desiredStatusAt, type Scenario } from "./scenario";

/** What a simulated user did to their own status. */
export interface ManualAction {
  user: string;
  at: number;
  order: number;
  kind: "set" | "clear";
  status: StatusValue;
  ok: boolean;
}

export interface OutOfOfficeProbe {
  user: string;
  start: number;
  /** Whether the profile showed the out-of-office status when the probe looked. */
  onTime: boolean;
  /** Whether Statuspilot ever wrote it. */
  shown: boolean;
  /** From the block's start to the write that showed it. */
  latencyMs: number | undefined;
}

export interface CheckInput {
  scenario: Scenario;
  calls: readonly ServiceCall[];
  events: readonly EventHandled[];
  manual: readonly ManualAction[];
  probes: readonly OutOfOfficeProbe[];
  /** Profiles one period after the faults stopped. */
  final: { at: number; profiles: Record<string, StatusValue | undefined> };
  deadLettered: number;
}

export interface Violation {
  check: string;
  user: string;
  at: number;
  detail: string;
}

export interface CheckResult {
  halfClears: Violation[];
  setsWithoutFutureExpiration: Violation[];
  manualOverwritten: Violation[];
  /**
   * Overwrites of a manual status whose user_change never reached Statuspilot (dropped or still
   * held back). The reconciler reads the profile before every write, so these count too.
   */
  blindOverwrites: Violation[];
  doubleWrites: Violation[];
  oooMissed: Violation[];
  oooLate: Violation[];
  diverged: Violation[];
  deadLettered: number;
}

const fmt = (s: StatusValue | undefined) =>
  s === undefined
    ? "none"
    : isEmptyStatus(s)
      ? "(empty)"
      : `${s.emoji} ${s.text} until ${s.expiration}`;

const isSet = (c: ServiceCall) => c.method === "users.profile.set";

/** The invariants of the soak, from what it recorded; every list must end up empty. */
export function checkInvariants(input: CheckInput): CheckResult {
  const writes = input.calls.filter((c) => isSet(c) && c.status !== undefined);
  const okWrites = writes.filter((c) => c.outcome === "ok");
  const result: CheckResult = {
    halfClears: [],
    setsWithoutFutureExpiration: [],
    manualOverwritten: [],
    blindOverwrites: [],
    doubleWrites: [],
    oooMissed: [],
    oooLate: [],
    diverged: [],
    deadLettered: input.deadLettered,
  };

  for (const c of writes) {
    const raw = c.raw;
    if (raw && (raw.text === "") !== (raw.emoji === "")) {
      result.halfClears.push({
        check: "half-clear",
        user: c.user,
        at: c.at,
        detail: `text ${JSON.stringify(raw.text)}, emoji ${JSON.stringify(raw.emoji)}`,
      });
    }
    const s = c.status as StatusValue;
    if (!isEmptyStatus(s) && !(s.expiration * 1000 > c.at)) {
      result.setsWithoutFutureExpiration.push({
        check: "set without a future expiration",
        user: c.user,
        at: c.at,
        detail: `expiration ${s.expiration} at ${Math.floor(c.at / 1000)}`,
      });
    }
  }

  const byUser = new Map<string, ServiceCall[]>();
  for (const c of okWrites) byUser.set(c.user, [...(byUser.get(c.user) ?? []), c]);

  for (const user of input.scenario.users) {
    const mine = byUser.get(user.id) ?? [];
    // Manual statuses: any write of ours while one is on the profile overwrites it.
    const sets = input.manual.filter((m) => m.user === user.id && m.kind === "set" && m.ok);
    for (const m of sets) {
      const clearedAt = input.manual.find(
        (x) => x.user === user.id && x.kind === "clear" && x.ok && x.order > m.order,
      );
      const endsAt = Math.min(
        m.status.expiration * 1000,
        clearedAt?.at ?? Number.POSITIVE_INFINITY,
      );
      const over = mine.find(
        (c) =>
          c.order > m.order &&
          c.at < endsAt &&
          (clearedAt === undefined || c.order < clearedAt.order),
      );
      if (!over) continue;
      const told = input.events.some(
        (e) =>
          e.user === user.id &&
          e.statusCode === 200 &&
          e.order < over.order &&
          e.order > m.order &&
          sameStatus(e.status, m.status),
      );
      (told ? result.manualOverwritten : result.blindOverwrites).push({
        check: told ? "manual status overwritten" : "manual status overwritten (user_change lost)",
        user: user.id,
        at: over.at,
        detail: `${fmt(m.status)} replaced by ${fmt(over.status)}`,
      });
    }

    // Two different writes with nothing in between that could change the desired status.
    const instants = changeInstants(user, Number.POSITIVE_INFINITY);
    for (let i = 1; i < mine.length; i++) {
      const prev = mine[i - 1] as ServiceCall;
      const cur = mine[i] as ServiceCall;
      if (sameStatus(prev.status as StatusValue, cur.status as StatusValue)) continue;
      const reason = instants.some((t) => t > prev.at && t <= cur.at);
      if (!reason) {
        result.doubleWrites.push({
          check: "two different writes for one transition",
          user: user.id,
          at: cur.at,
          detail: `${fmt(prev.status)} then ${fmt(cur.status)}`,
        });
      }
    }

    // One period after the faults: the profile shows the manual status or the desired one.
    const t = input.final.at;
    const manualNow = sets.find((m) => {
      const cleared = input.manual.some(
        (x) => x.user === user.id && x.kind === "clear" && x.ok && x.order > m.order && x.at <= t,
      );
      const overwritten = [...result.blindOverwrites, ...result.manualOverwritten].some(
        (v) => v.user === user.id,
      );
      return !cleared && !overwritten && m.status.expiration * 1000 > t;
    });
    const expected = manualNow?.status ?? desiredStatusAt(user, t);
    const actual = input.final.profiles[user.id];
    const effective =
      actual && actual.expiration > 0 && actual.expiration * 1000 <= t
        ? { text: "", emoji: "", expiration: 0 }
        : actual;
    if (effective === undefined || !sameStatus(effective, expected)) {
      result.diverged.push({
        check: "actual differs from desired",
        user: user.id,
        at: t,
        detail: `profile ${fmt(effective)}, desired ${fmt(expected)}`,
      });
    }
  }

  for (const p of input.probes) {
    if (!p.shown) {
      result.oooMissed.push({
        check: "out-of-office missed",
        user: p.user,
        at: p.start,
        detail: "",
      });
    } else if (!p.onTime) {
      result.oooLate.push({ check: "out-of-office late", user: p.user, at: p.start, detail: "" });
    }
  }
  return result;
}

/** Every violation that fails the run, in the order the report lists them. */
export function requiredViolations(result: CheckResult): Violation[] {
  return [
    ...result.halfClears,
    ...result.setsWithoutFutureExpiration,
    ...result.manualOverwritten,
    ...result.blindOverwrites,
    ...result.doubleWrites,
    ...result.oooMissed,
    ...result.oooLate,
    ...result.diverged,
  ];
}
