import { isEmptyStatus, type StatusValue } from "#lib/core/types";
import type { Checkpoint } from "./checkpoints";
import type { EventHandled, ServiceCall } from "./harness";
import { changeInstants, expectedStatusAt, sameShown, shownOnProfile } from "./oracle";
import type { Scenario } from "./scenario";

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

/** What a user's profile showed at one checkpoint (read from the service itself). */
export interface ProfileSample {
  checkpoint: Checkpoint;
  actual: StatusValue | undefined;
}

export interface CheckInput {
  scenario: Scenario;
  calls: readonly ServiceCall[];
  events: readonly EventHandled[];
  manual: readonly ManualAction[];
  probes: readonly OutOfOfficeProbe[];
  /** The profiles read at the checkpoints; none when the caller checks nothing over the day. */
  samples?: readonly ProfileSample[];
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
  /** Checkpoints where the profile showed something else than the calendar asks for. */
  offCalendar: Violation[];
  /**
   * Checkpoints missed only because every call Statuspilot made for the user since the change
   * failed (injected faults), and whose first write that landed was the right one. Not
   * violations; measured (from the change to that write).
   */
  lateByFaults: { count: number; maxMs: number };
  /** First block starts after a manual status ended that did not show the calendar's status. */
  notBackAfterManual: Violation[];
  diverged: Violation[];
  deadLettered: number;
}

const hhmmss = (ms: number) => new Date(ms).toISOString().slice(11, 19);

const fmt = (s: StatusValue | undefined) =>
  s === undefined
    ? "none"
    : isEmptyStatus(s)
      ? "(empty)"
      : s.expiration === 0
        ? `${s.emoji} ${s.text} (no expiration)`
        : `${s.emoji} ${s.text} until ${hhmmss(s.expiration * 1000)}`;

const isSet = (c: ServiceCall) => c.method === "users.profile.set";

/** When a status expires; one with expiration 0 never does. */
const expiresAt = (s: StatusValue) =>
  s.expiration > 0 ? s.expiration * 1000 : Number.POSITIVE_INFINITY;

/**
 * How long after the change the right status landed, when the checkpoint missed it only
 * because the service kept failing: Statuspilot's calls for the user since the change all
 * failed (at least one did), and its first write that landed afterwards showed the expected
 * status (or came after the status was due to change anyway). Undefined otherwise.
 */
function landedLateAfterFaults(calls: readonly ServiceCall[], cp: Checkpoint): number | undefined {
  const mine = calls.filter((c) => c.user === cp.user && c.at >= cp.since);
  const inWindow = mine.filter((c) => c.at <= cp.at);
  if (!inWindow.some((c) => c.outcome !== "ok")) return undefined;
  if (inWindow.some((c) => isSet(c) && c.outcome === "ok")) return undefined;
  const landed = mine.find((c) => isSet(c) && c.outcome === "ok" && c.at > cp.at);
  if (landed === undefined || landed.status === undefined) return undefined;
  if (landed.at < cp.until && !sameShown(landed.status, cp.expected)) return undefined;
  return landed.at - cp.since;
}

/** Whether Statuspilot accepted a `user_change` with an empty status between the clear and `upTo`. */
function clearArrived(input: CheckInput, user: string, clearAt: number, upTo: number): boolean {
  return input.events.some(
    (e) =>
      e.user === user &&
      e.statusCode === 200 &&
      e.at >= clearAt &&
      e.at <= upTo &&
      isEmptyStatus(e.status),
  );
}

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
    offCalendar: [],
    lateByFaults: { count: 0, maxMs: 0 },
    notBackAfterManual: [],
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
      const endsAt = Math.min(expiresAt(m.status), clearedAt?.at ?? Number.POSITIVE_INFINITY);
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
          sameShown(e.status, m.status),
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
      if (sameShown(prev.status as StatusValue, cur.status as StatusValue)) continue;
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
      return !cleared && !overwritten && expiresAt(m.status) > t;
    });
    const expected = manualNow?.status ?? expectedStatusAt(user, t);
    const effective = shownOnProfile(input.final.profiles[user.id], t);
    const clearAt = user.manual?.clearAt;
    const told = clearAt === undefined || clearArrived(input, user.id, clearAt, t);
    // A clear Statuspilot never heard of is promised to be noticed at the next block start
    // only; when none came before the end, the run cannot hold it to more.
    const noBlockStartSince = !(input.samples ?? []).some(
      (x) => x.checkpoint.user === user.id && x.checkpoint.kind === "after-manual",
    );
    const excused = !manualNow && !told && noBlockStartSince && input.samples !== undefined;
    if (!excused && (effective === undefined || !sameShown(effective, expected))) {
      result.diverged.push({
        check: "actual differs from desired",
        user: user.id,
        at: t,
        detail:
          `profile ${fmt(effective)}, desired ${fmt(expected)}` +
          (clearAt === undefined
            ? ""
            : `; the clear's user_change ${told ? "arrived" : "was lost"}`),
      });
    }
  }

  for (const sample of input.samples ?? []) {
    const cp = sample.checkpoint;
    const shown = shownOnProfile(sample.actual, cp.at);
    if (shown !== undefined && sameShown(shown, cp.expected)) continue;
    const landedMs = landedLateAfterFaults(input.calls, cp);
    if (landedMs !== undefined) {
      result.lateByFaults.count++;
      result.lateByFaults.maxMs = Math.max(result.lateByFaults.maxMs, landedMs);
      continue;
    }
    const after = cp.kind === "after-manual";
    const user = input.scenario.users.find((u) => u.id === cp.user);
    const clearAt = user?.manual?.clearAt;
    const clearTold = clearAt !== undefined && clearArrived(input, cp.user, clearAt, cp.at);
    (after ? result.notBackAfterManual : result.offCalendar).push({
      check: after
        ? "calendar status not back at the first block start after a manual status"
        : "profile differs from the calendar",
      user: cp.user,
      at: cp.at,
      detail:
        `profile ${fmt(shown)}, calendar ${fmt(cp.expected)} since ${hhmmss(cp.since)}` +
        (after && clearAt !== undefined
          ? `; the clear's user_change ${clearTold ? "arrived" : "was lost"}`
          : ""),
    });
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
    ...result.offCalendar,
    ...result.notBackAfterManual,
    ...result.diverged,
  ];
}
