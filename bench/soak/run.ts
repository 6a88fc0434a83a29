import { ManualClock } from "#lib/core/clock";
import type { StatusValue } from "#lib/core/types";
import { type Checkpoint, planCheckpoints } from "./checkpoints";
import {
  type CheckResult,
  checkInvariants,
  type ManualAction,
  type OutOfOfficeProbe,
  type ProfileSample,
  requiredViolations,
} from "./checks";
import type { EventRelayStats } from "./event-relay";
import { SoakHarness } from "./harness";
import { expectedStatusAt, sameShown } from "./oracle";
import { emailOf, generateScenario, renderIcs, type Scenario, type SoakShape } from "./scenario";
import type { SoakSchedulerStats } from "./scheduler";

const MIN = 60_000;

/**
 * The fault mix in the service: failed calls, held calls, dropped and duplicated events.
 * Late events come from the harness's relay instead, late in simulated time (EVENT_HOLD).
 */
export const SOAK_FAULTS =
  "internal_error=0.1,ratelimited=0.05,timeout=0.02,drop_event=0.2,duplicate_event=0.1";

/** While faults are on, this share of deliveries reaches the endpoint up to 3 simulated min late. */
export const EVENT_HOLD = { rate: 0.15, maxMs: 180_000 };

/**
 * How late a status may appear and still count as on time (out-of-office blocks, and every
 * checkpoint of the day). The client backs off 5 s doubling (or Retry-After), so this is
 * reached only after six failed calls in a row.
 */
export const ON_TIME_MS = 180_000;

export const FULL_SHAPE: SoakShape = {
  users: 200,
  seed: 20260309,
  dayStart: Date.UTC(2026, 2, 9, 7, 0),
  faultsOffAt: Date.UTC(2026, 2, 9, 17, 0),
  settleMs: 10 * MIN,
};

export const QUICK_SHAPE: SoakShape = {
  users: 24,
  seed: 20260309,
  dayStart: Date.UTC(2026, 2, 9, 8, 0),
  faultsOffAt: Date.UTC(2026, 2, 9, 10, 0),
  settleMs: 10 * MIN,
};

export interface SoakReport {
  scenario: Scenario;
  checks: CheckResult;
  stats: {
    wallMs: number;
    simulatedMs: number;
    calls: number;
    callOutcomes: Record<string, number>;
    eventsHandled: number;
    eventsDropped: number;
    /** Deliveries the relay held back and released later in simulated time. */
    eventsHeld: EventRelayStats;
    /** Profile reads against the independent oracle, and how many were after-manual ones. */
    checkpoints: { total: number; afterManual: number };
    /** Manual statuses set without expiration, and how many of their clears the relay lost. */
    lastingManual: { set: number; clearsLost: number };
    eventDuplicatesIgnored: number;
    manualActions: number;
    edits: number;
    ooo: number;
    transitionQueue: ReturnType<SoakHarness["queues"]["transition"]["stats"]>;
    syncQueue: ReturnType<SoakHarness["queues"]["sync"]["stats"]>;
    crash: { user: string; at?: number; redelivered: boolean; recovered: boolean };
    /** Slowest out-of-office block, from its start to the write that showed it. */
    oooMaxLatencyMs: number;
    taskErrors: string[];
    scheduler: SoakSchedulerStats;
  };
  /** Whether every required count is zero and the crash was recovered from. */
  passed: boolean;
}

/** Runs one simulated day against the real handlers, store and emulator with faults on. */
export async function runSoak(
  shape: SoakShape,
  progress: (line: string) => void = () => {},
  /** Where a stall report goes (what the run still waits on); nowhere unless given. */
  warn: (report: string) => void = () => {},
): Promise<SoakReport> {
  const started = performance.now();
  const scenario = generateScenario(shape);
  const clock = new ManualClock(shape.dayStart - 15 * MIN);
  const users = scenario.users.map((u) => ({ id: u.id, tz: u.tz, feedPath: `/feeds/${u.id}.ics` }));
  const h = new SoakHarness({
    clock,
    team: scenario.team,
    users,
    seed: shape.seed,
    onStall: warn,
  });
  const manual: ManualAction[] = [];
  const probes: OutOfOfficeProbe[] = [];
  const samples: ProfileSample[] = [];
  const at = (instant: number, task: () => Promise<unknown> | unknown) =>
    h.scheduler.at(instant, task);
  try {
    await h.start();
    for (const u of scenario.users)
      h.ics.setFeed(`/feeds/${u.id}.ics`, renderIcs(u.events, clock.now(), emailOf(u.id)));
    await h.registerUsers();
    h.startSchedules();
    await h.scheduler.advanceTo(shape.dayStart - MIN);
    progress(`${scenario.users.length} users registered and synced`);

    at(shape.dayStart, () => {
      h.emulator.setFaults(SOAK_FAULTS);
      h.relay.setHold(EVENT_HOLD);
    });
    at(shape.faultsOffAt, () => {
      h.emulator.setFaults("");
      h.relay.setHold({ rate: 0, maxMs: 0 });
    });
    h.crash = { user: scenario.crash.user, after: scenario.crash.after };
    for (const u of scenario.users) {
      for (const edit of u.edits) {
        at(edit.at, async () => {
          h.ics.setFeed(`/feeds/${u.id}.ics`, renderIcs(edit.events, clock.now(), emailOf(u.id)));
          const status = await h.push(u.id);
          if (status !== 200) throw new Error(`push for ${u.id} answered ${status}`);
        });
      }
      for (const o of u.ooo) {
        at(o.scheduledAt, async () => {
          const status = await h.scheduleOutOfOffice(u.id, o.start, o.end);
          if (status !== 201) throw new Error(`out-of-office for ${u.id} answered ${status}`);
        });
      }
      const m = u.manual;
      if (m) {
        const act = async (kind: "set" | "clear", status: StatusValue) => {
          const order = h.nextOrder();
          const omit = kind === "set" && m.omitExpiration === true;
          const ok = await h.setOwnStatus(u.id, status, omit);
          manual.push({ user: u.id, at: clock.now(), order, kind, status, ok });
        };
        at(m.at, () => act("set", m.status));
        const clearAt = m.clearAt;
        if (clearAt !== undefined) {
          at(clearAt, () => {
            if (m.loseClearEvent) h.relay.lose({ user: u.id, at: clearAt, cleared: true });
            return act("clear", { text: "", emoji: "", expiration: 0 });
          });
        }
      }
    }

    const end = shape.faultsOffAt + shape.settleMs;
    // The profiles are read at each checkpoint, at its instant, before that instant's writes.
    const checkpoints = planCheckpoints(scenario.users, {
      from: shape.dayStart,
      until: end,
      lateMs: ON_TIME_MS,
    });
    const byInstant = new Map<number, Checkpoint[]>();
    for (const cp of checkpoints) byInstant.set(cp.at, [...(byInstant.get(cp.at) ?? []), cp]);
    for (const [instant, due] of byInstant) {
      at(instant, () => {
        const profiles = h.profileStatuses();
        for (const checkpoint of due)
          samples.push({ checkpoint, actual: profiles[checkpoint.user] });
      });
    }
    for (let t = shape.dayStart; t < end; t = Math.min(end, t + 60 * MIN)) {
      await h.scheduler.advanceTo(t);
      progress(`simulated ${new Date(t).toISOString().slice(11, 16)} UTC, ${h.calls.length} calls`);
    }
    await h.scheduler.advanceTo(end);

    const finalProfiles: Record<string, StatusValue | undefined> = h.profileStatuses();
    for (const u of scenario.users) {
      for (const o of u.ooo) {
        const want = expectedStatusAt(u, o.start);
        const first = h.calls.find(
          (c) =>
            c.user === u.id &&
            c.outcome === "ok" &&
            c.at >= o.scheduledAt &&
            c.status !== undefined &&
            sameShown(c.status, want),
        );
        probes.push({
          user: u.id,
          start: o.start,
          shown: first !== undefined,
          latencyMs: first === undefined ? undefined : Math.max(0, first.at - o.start),
          onTime: first !== undefined && first.at - o.start <= ON_TIME_MS,
        });
      }
    }
    const checks = checkInvariants({
      scenario,
      calls: h.calls,
      events: h.events,
      manual,
      probes,
      samples,
      final: { at: clock.now(), profiles: finalProfiles },
      deadLettered: h.queues.transition.stats().deadLettered + h.queues.sync.stats().deadLettered,
    });

    const callOutcomes: Record<string, number> = {};
    for (const c of h.calls) callOutcomes[c.outcome] = (callOutcomes[c.outcome] ?? 0) + 1;
    const deliveries = h.emulator.state().deliveries;
    const crashUser = scenario.users.find((u) => u.id === scenario.crash.user);
    const crashAt = h.crash?.at;
    const view = await h.app.pilot?.getStatusView({
      team: scenario.team,
      user: scenario.crash.user,
    });
    const recovered =
      crashAt !== undefined &&
      crashUser !== undefined &&
      !checks.diverged.some((v) => v.user === crashUser.id) &&
      (view?.pending === undefined || view.pending.claimedAt + 30_000 < clock.now());
    const transitionStats = h.queues.transition.stats();
    const stats: SoakReport["stats"] = {
      wallMs: Math.round(performance.now() - started),
      simulatedMs: end - (shape.dayStart - 15 * MIN),
      calls: h.calls.length,
      callOutcomes,
      eventsHandled: h.events.length,
      eventsDropped: deliveries.filter((d) => d.outcome === "dropped").length,
      eventsHeld: h.relay.stats(),
      checkpoints: {
        total: samples.length,
        afterManual: samples.filter((x) => x.checkpoint.kind === "after-manual").length,
      },
      lastingManual: {
        set: scenario.users.filter((u) => u.manual?.status.expiration === 0).length,
        clearsLost: h.relay.stats().discarded,
      },
      eventDuplicatesIgnored: 0,
      manualActions: manual.length,
      edits: scenario.users.reduce((n, u) => n + u.edits.length, 0),
      ooo: scenario.users.reduce((n, u) => n + u.ooo.length, 0),
      transitionQueue: transitionStats,
      syncQueue: h.queues.sync.stats(),
      crash: {
        user: scenario.crash.user,
        ...(crashAt !== undefined ? { at: crashAt } : {}),
        redelivered: transitionStats.redelivered > 0,
        recovered,
      },
      oooMaxLatencyMs: Math.max(0, ...probes.map((p) => p.latencyMs ?? 0)),
      taskErrors: h.taskErrors,
      scheduler: h.scheduler.stats(),
    };
    const passed =
      requiredViolations(checks).length === 0 &&
      checks.deadLettered === 0 &&
      recovered &&
      h.taskErrors.length === 0;
    return { scenario, checks, stats, passed };
  } finally {
    await h.close();
  }
}
