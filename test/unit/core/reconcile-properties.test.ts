import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Decision, decideForState, decisionStatus } from "../../../lib/core/decide";
import {
  applyObservation,
  applyRead,
  claimWrite,
  effectiveStatus,
  initialStatusState,
  recordWrite,
  releaseWrite,
  type StatusState,
  sameStatus,
} from "../../../lib/core/status-state";
import { type Block, isEmptyStatus, type StatusValue } from "../../../lib/core/types";

/*
 * A simulated day: a service holding the status (clearing it at its expiration, silently),
 * a user who sets and clears statuses, a desired timeline that keeps changing, and an event
 * channel that delays, duplicates and reorders every `user_change`, and loses echoes of our
 * own writes. Our writes go through the reconciler's phases: claimed, in flight (the service
 * applies it some time later), then recorded, or failed after or before the service applied
 * it, or applied but the record step failed (the claim stays until its lease runs out).
 * Every user action happens in its own second, as the service's event_time has one-second
 * resolution; two writes of ours may share a second. A user action during a flight comes
 * after the service applied our write: the other order cannot be told from this one without
 * the echo. For the same reason the echo of a write whose outcome we could not record (the
 * call failed, or the record step did) is delayed but never lost.
 *
 * With read-before-write on, every write is preceded by a read of the service's profile, and
 * the user's own events may be lost too: then no manual status may ever be overwritten, known
 * or not.
 */

const LEASE_MS = 30_000;

type Command =
  | { t: "advance"; seconds: number }
  | {
      t: "timeline";
      blocks: { startMin: number; lengthMin: number; kind: 0 | 1 | 2 }[];
      /** Lands 100 ms after the previous command, so two writes of ours share a second. */
      quick: boolean;
    }
  | { t: "user"; manual: number | null; expiresInMin: number | null }
  | { t: "deliver"; index: number; duplicate: boolean }
  | { t: "drop"; index: number }
  | { t: "lose"; index: number }
  | { t: "reconcile" }
  | { t: "land" }
  | { t: "finish"; outcome: "ok" | "failed" | "record_fails"; applied: boolean };

const KINDS = [
  { kind: "meeting", text: "In a meeting", emoji: ":calendar:" },
  { kind: "focus", text: "Focusing", emoji: ":headphones:" },
  { kind: "ooo", text: "Out of office", emoji: ":palm_tree:" },
] as const;

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ t: fc.constant("advance" as const), seconds: fc.integer({ min: 1, max: 1800 }) }),
  fc.record({
    t: fc.constant("timeline" as const),
    blocks: fc.array(
      fc.record({
        startMin: fc.integer({ min: -30, max: 120 }),
        lengthMin: fc.integer({ min: 1, max: 90 }),
        kind: fc.constantFrom(0 as const, 1 as const, 2 as const),
      }),
      { maxLength: 4 },
    ),
    quick: fc.boolean(),
  }),
  fc.record({
    t: fc.constant("user" as const),
    manual: fc.option(fc.integer({ min: 0, max: 3 })),
    expiresInMin: fc.option(fc.integer({ min: 1, max: 120 })),
  }),
  fc.record({ t: fc.constant("deliver" as const), index: fc.nat(), duplicate: fc.boolean() }),
  fc.record({ t: fc.constant("drop" as const), index: fc.nat() }),
  fc.record({ t: fc.constant("reconcile" as const) }),
  fc.record({ t: fc.constant("land" as const) }),
  fc.record({
    t: fc.constant("finish" as const),
    outcome: fc.constantFrom("ok" as const, "failed" as const, "record_fails" as const),
    applied: fc.boolean(),
  }),
);

interface PendingEvent {
  eventId: string;
  eventTime: number;
  status: StatusValue;
  ours: boolean;
  /** The echo of a write whose outcome we could not record is all we learn of it. */
  kept?: boolean;
}

type Invariant =
  | "clear_shape"
  | "set_expiration"
  | "manual_kept"
  | "manual_never_overwritten"
  | "one_write"
  | "echo_ours";

interface SimulationOptions {
  /** Read the profile before every write (the reconciler's `verifyBeforeWrite`). */
  verify: boolean;
}

class Simulation {
  now = Date.UTC(2025, 2, 3, 8, 0, 0);
  service: StatusValue = { text: "", emoji: "", expiration: 0 };
  serviceByUser = false;
  userEventId = "";
  delivered = new Set<string>();
  events: PendingEvent[] = [];
  timeline: Block[] = [];
  state: StatusState = initialStatusState();
  /** The write the service has not answered yet: its sender is still waiting. */
  inFlight: { status: StatusValue; sentAt: number; landed: boolean; echoId?: string } | undefined;
  /** A reconcile is queued: a retry after a failure, or a different write waiting for a flight. */
  recheck = false;
  epochWrites: StatusValue[] = [];
  nextEventId = 0;
  violations: Array<{ invariant: Invariant; message: string }> = [];

  constructor(readonly options: SimulationOptions = { verify: false }) {}

  of(invariant: Invariant): string[] {
    return this.violations.filter((v) => v.invariant === invariant).map((v) => v.message);
  }

  private desiredNow(): Block | undefined {
    return this.timeline.find((b) => b.start <= this.now && this.now < b.end);
  }

  private desiredKey(): string {
    const b = this.desiredNow();
    return b === undefined ? "none" : `${b.text}|${b.expiration}`;
  }

  private newEpoch(): void {
    this.epochWrites = [];
  }

  private emit(status: StatusValue, ours: boolean): string {
    const eventId = `ev${this.nextEventId++}`;
    this.events.push({ eventId, eventTime: Math.floor(this.now / 1000), status, ours });
    return eventId;
  }

  private tickSecond(seconds: number): void {
    // A sender answers within its lease (a Lambda's timeout is shorter).
    for (let i = 0; i < 5; i++) {
      const flight = this.inFlight;
      if (flight === undefined || this.now + seconds * 1000 < flight.sentAt + LEASE_MS) break;
      this.finish("ok", true);
    }
    const before = this.desiredKey();
    this.now += seconds * 1000;
    const expired = effectiveStatus(this.service, this.now);
    if (expired !== this.service) {
      this.service = expired;
      this.serviceByUser = false;
      this.newEpoch();
      // The expiration is a scheduled transition (block end or override end).
      this.recheck = true;
    }
    if (this.desiredKey() !== before) {
      this.newEpoch();
      this.recheck = true;
    }
  }

  /** Runs the reconcile that a queued message (transition, retry, wait) asks for. */
  private flush(): void {
    if (!this.recheck) return;
    this.recheck = false;
    this.reconcile();
  }

  reconcile(): void {
    const { decision, inFlight, recheck } = decideForState(
      this.state,
      this.desiredNow(),
      this.now,
      LEASE_MS,
    );
    let status = decisionStatus(decision);
    if (inFlight !== undefined) {
      if (recheck === true) this.recheck = true;
      return;
    }
    if (status === undefined || this.inFlight !== undefined) return;
    let write = decision;
    if (this.options.verify) {
      // The read shows the service's profile as it is now, lost events or not.
      this.state = applyRead(this.state, this.service, this.now).state;
      write = decideForState(this.state, this.desiredNow(), this.now, LEASE_MS).decision;
      status = decisionStatus(write);
      if (status === undefined) return;
    }
    this.check(write, status);
    this.state = claimWrite(this.state, status, this.now);
    this.inFlight = { status, sentAt: this.now, landed: false };
  }

  private land(): void {
    const flight = this.inFlight;
    if (flight === undefined || flight.landed) return;
    this.service = flight.status;
    this.serviceByUser = false;
    flight.echoId = this.emit(flight.status, true);
    flight.landed = true;
  }

  private finish(outcome: "ok" | "failed" | "record_fails", applied: boolean): void {
    const flight = this.inFlight;
    if (flight === undefined) return;
    if (outcome !== "failed" || applied) this.land();
    this.inFlight = undefined;
    if (outcome === "ok") {
      this.state = recordWrite(this.state, flight.status, this.now, flight.sentAt);
      // The sender reconciles once more when a different write waited for it.
      this.flush();
      return;
    }
    if (outcome === "failed") this.state = releaseWrite(this.state, flight.sentAt);
    // Applied but unrecorded, with its echo lost too, a write is unknowable until it expires:
    // a manual status older than it but observed later could be showing, or not.
    const echo = this.events.find((e) => e.eventId === flight.echoId);
    if (echo !== undefined) echo.kept = true;
    this.recheck = true;
  }

  private check(decision: Decision, status: StatusValue): void {
    if (
      decision.kind === "clear" &&
      (status.text !== "" || status.emoji !== "" || status.expiration !== 0)
    ) {
      this.violations.push({
        invariant: "clear_shape",
        message: "a clear did not send text, emoji and expiration 0 together",
      });
    }
    if (decision.kind === "set") {
      const block = this.desiredNow();
      if (status.expiration * 1000 <= this.now) {
        this.violations.push({ invariant: "set_expiration", message: "a set expires in the past" });
      }
      if (block === undefined || status.expiration !== Math.floor(block.end / 1000)) {
        this.violations.push({
          invariant: "set_expiration",
          message: "a set's expiration differs from its block's end",
        });
      }
    }
    const manualShowing =
      this.serviceByUser && !isEmptyStatus(effectiveStatus(this.service, this.now));
    if (manualShowing && this.delivered.has(this.userEventId)) {
      this.violations.push({
        invariant: "manual_kept",
        message: "overwrote an active manual status we knew about",
      });
    }
    if (manualShowing) {
      this.violations.push({
        invariant: "manual_never_overwritten",
        message: "overwrote an active manual status, known or not",
      });
    }
    if (this.epochWrites.some((w) => !sameStatus(w, status))) {
      this.violations.push({
        invariant: "one_write",
        message: "one transition produced two different writes",
      });
    }
    this.epochWrites.push(status);
  }

  private deliver(event: PendingEvent): void {
    this.delivered.add(event.eventId);
    const applied = applyObservation(this.state, event);
    if (event.ours && applied.result === "manual") {
      this.violations.push({
        invariant: "echo_ours",
        message: "the echo of our own write was taken for a manual change",
      });
    }
    this.state = applied.state;
    // As the events endpoint does: a duplicate or stale event triggers nothing.
    if (applied.result !== "duplicate" && applied.result !== "stale") this.reconcile();
  }

  run(command: Command): void {
    this.tickSecond(command.t === "timeline" && command.quick ? 0.1 : 1);
    switch (command.t) {
      case "advance":
        this.tickSecond(command.seconds);
        this.flush();
        return;
      case "timeline": {
        const base = Math.floor(this.now / 60_000) * 60_000;
        this.timeline = [];
        let cursor = Number.NEGATIVE_INFINITY;
        for (const spec of [...command.blocks].sort((a, b) => a.startMin - b.startMin)) {
          const start = Math.max(base + spec.startMin * 60_000, cursor);
          const end = start + spec.lengthMin * 60_000;
          const k = KINDS[spec.kind];
          this.timeline.push({
            start,
            end,
            kind: k.kind,
            text: k.text,
            emoji: k.emoji,
            expiration: end / 1000,
          });
          cursor = end;
        }
        this.newEpoch();
        this.reconcile();
        return;
      }
      case "user": {
        if (this.inFlight !== undefined && !this.inFlight.landed) {
          this.land();
          this.tickSecond(1);
        }
        const status: StatusValue =
          command.manual === null
            ? { text: "", emoji: "", expiration: 0 }
            : {
                text: `manual ${command.manual}`,
                emoji: ":wave:",
                expiration:
                  command.expiresInMin === null
                    ? 0
                    : Math.floor(this.now / 1000) + command.expiresInMin * 60,
              };
        this.service = status;
        this.serviceByUser = !isEmptyStatus(status);
        this.userEventId = this.emit(status, false);
        this.newEpoch();
        // Nothing of ours shares the second of a user's action: that order is unknowable.
        this.tickSecond((1000 - (this.now % 1000)) / 1000);
        return;
      }
      case "deliver": {
        if (this.events.length === 0) return;
        const i = command.index % this.events.length;
        const event = this.events[i];
        if (event === undefined) return;
        if (!command.duplicate) this.events.splice(i, 1);
        this.deliver(event);
        return;
      }
      case "drop": {
        // The echo of a write in flight is only lost once its fate is recorded (see above).
        const echoes = this.events.filter(
          (e) => e.ours && e.kept !== true && e.eventId !== this.inFlight?.echoId,
        );
        const victim = echoes[command.index % Math.max(1, echoes.length)];
        if (victim !== undefined) this.events.splice(this.events.indexOf(victim), 1);
        return;
      }
      case "lose": {
        // A user's own change whose event never arrives.
        const users = this.events.filter((e) => !e.ours);
        const victim = users[command.index % Math.max(1, users.length)];
        if (victim !== undefined) this.events.splice(this.events.indexOf(victim), 1);
        return;
      }
      case "reconcile":
        this.reconcile();
        return;
      case "land":
        this.land();
        return;
      case "finish":
        this.finish(command.outcome, command.applied);
        return;
    }
  }

  /** Events stop arriving out of order: writes complete and everything left arrives in order. */
  settle(): void {
    this.finish("ok", true);
    // Claims whose sender gave up run out of lease.
    this.tickSecond(LEASE_MS / 1000 + 1);
    for (let round = 0; round < 10; round++) {
      const remaining = [...this.events].sort((a, b) => a.eventTime - b.eventTime);
      this.events = [];
      for (const event of remaining) this.deliver(event);
      this.flush();
      this.finish("ok", true);
      if (this.events.length === 0 && this.inFlight === undefined && !this.recheck) return;
      this.tickSecond(1);
    }
  }

  converged(): boolean {
    const shown = effectiveStatus(this.service, this.now);
    if (this.serviceByUser && !isEmptyStatus(shown)) return true;
    const block = this.desiredNow();
    if (block === undefined || block.end / 1000 <= Math.floor(this.now / 1000))
      return isEmptyStatus(shown);
    return (
      shown.text === block.text &&
      shown.emoji === block.emoji &&
      shown.expiration === block.expiration
    );
  }
}

const days = fc.array(commandArb, { minLength: 1, maxLength: 60 });
// A fixed seed keeps CI deterministic; SIM_SEED explores other days (SIM_SEED=random for a new one).
const RUNS = {
  numRuns: Number(process.env.SIM_RUNS ?? 3000),
  ...(process.env.SIM_SEED === "random" ? {} : { seed: Number(process.env.SIM_SEED ?? 1) }),
};

/** Days on which the user's own events may be lost as well as our echoes. */
const lossyDays = fc.array(
  fc.oneof(
    { arbitrary: commandArb, weight: 9 },
    {
      arbitrary: fc.record({ t: fc.constant("lose" as const), index: fc.nat() }),
      weight: 2,
    },
  ),
  { minLength: 1, maxLength: 60 },
);

/** Runs one random day to the end, events settled. */
function simulate(commands: Command[], options?: SimulationOptions): Simulation {
  const sim = new Simulation(options);
  for (const command of commands) sim.run(command);
  sim.settle();
  return sim;
}

describe("reconciliation over random days of events", () => {
  it("sends every clear as empty text and emoji with expiration 0", () => {
    fc.assert(
      fc.property(days, (commands) => {
        // Prepare / Act
        const sim = simulate(commands);
        // Assess
        expect(sim.of("clear_shape")).toEqual([]);
      }),
      RUNS,
    );
  });

  it("gives every set a future expiration equal to its block's end", () => {
    fc.assert(
      fc.property(days, (commands) => {
        // Prepare / Act
        const sim = simulate(commands);
        // Assess
        expect(sim.of("set_expiration")).toEqual([]);
      }),
      RUNS,
    );
  });

  it("never overwrites or clears an active manual status it knows about", () => {
    fc.assert(
      fc.property(days, (commands) => {
        // Prepare / Act
        const sim = simulate(commands);
        // Assess
        expect(sim.of("manual_kept")).toEqual([]);
      }),
      RUNS,
    );
  });

  it("never sends two different writes for one transition", () => {
    fc.assert(
      fc.property(days, (commands) => {
        // Prepare / Act
        const sim = simulate(commands);
        // Assess
        expect(sim.of("one_write")).toEqual([]);
      }),
      RUNS,
    );
  });

  it("never takes the echo of its own write, even one whose call failed, for a manual change", () => {
    fc.assert(
      fc.property(days, (commands) => {
        // Prepare / Act
        const sim = simulate(commands);
        // Assess
        expect(sim.of("echo_ours")).toEqual([]);
      }),
      RUNS,
    );
  });

  it("converges to the desired status once events stop arriving out of order", () => {
    fc.assert(
      fc.property(days, (commands) => {
        // Prepare / Act
        const sim = simulate(commands);
        // Assess
        expect(sim.converged()).toBe(true);
      }),
      RUNS,
    );
  });

  // Known bug, found by the convergence property (about one seed in five of 3,000 days finds it,
  // e.g. SIM_SEED=5 or 20261121): the user's status change and our set fall in the same
  // second; `event_time` has whole seconds, so the tie is read as "manual" (never overwrite a
  // manual status). When the block is then cancelled, our set stays on the profile until its
  // status_expiration clears it, instead of being cleared at once. Pinned here so it stays
  // visible; it turns into a normal test when the tie is resolved (e.g. by a read of the profile).
  it.fails("clears a cancelled block after an older user clear was delivered (known bug)", () => {
    // Prepare
    const commands = [
      { t: "user", manual: 0, expiresInMin: null },
      { t: "timeline", blocks: [{ startMin: 0, lengthMin: 2, kind: 0 }], quick: false },
      { t: "deliver", index: 0, duplicate: false },
      { t: "timeline", blocks: [], quick: false },
      { t: "advance", seconds: 26 },
      { t: "drop", index: 0 },
    ] as unknown as Command[];
    // Act
    const sim = simulate(commands);
    // Assess
    expect(sim.converged()).toBe(true);
  });

  it("recognises a late echo of our earlier write as ours, not as a manual change", () => {
    // Prepare: we wrote A, then B; A's echo arrives after B was written.
    const a: StatusValue = { text: "In a meeting", emoji: ":calendar:", expiration: 2_000_000_000 };
    const b: StatusValue = { text: "Focusing", emoji: ":headphones:", expiration: 2_000_000_100 };
    let state = recordWrite(initialStatusState(), a, 1_000_000);
    state = recordWrite(state, b, 1_005_000);
    // Act
    const { state: after, result } = applyObservation(state, {
      eventId: "e1",
      eventTime: 1_000,
      status: a,
    });
    // Assess
    expect(result).toBe("stale");
    expect(after.override).toBeUndefined();
    expect(after.actual.status).toEqual(b);
  });

  it("treats a late echo arriving in the same second as a later write as ours", () => {
    // Prepare
    const a: StatusValue = { text: "In a meeting", emoji: ":calendar:", expiration: 2_000_000_000 };
    const b: StatusValue = { text: "Focusing", emoji: ":headphones:", expiration: 2_000_000_100 };
    let state = recordWrite(initialStatusState(), a, 1_000_100);
    state = recordWrite(state, b, 1_000_900);
    // Act
    const { state: after, result } = applyObservation(state, {
      eventId: "e2",
      eventTime: 1_000,
      status: a,
    });
    // Assess
    expect(result).toBe("stale");
    expect(after.override).toBeUndefined();
  });

  it("ignores a duplicated event by its id", () => {
    // Prepare
    const manual: StatusValue = { text: "Lunch", emoji: ":taco:", expiration: 0 };
    const first = applyObservation(initialStatusState(), {
      eventId: "e3",
      eventTime: 50,
      status: manual,
    });
    // Act
    const again = applyObservation(first.state, { eventId: "e3", eventTime: 50, status: manual });
    // Assess
    expect(first.result).toBe("manual");
    expect(again.result).toBe("duplicate");
  });

  it("ends a manual override when the user clears the status", () => {
    // Prepare
    const manual: StatusValue = { text: "Lunch", emoji: ":taco:", expiration: 0 };
    const set = applyObservation(initialStatusState(), {
      eventId: "m1",
      eventTime: 50,
      status: manual,
    });
    // Act
    const cleared = applyObservation(set.state, {
      eventId: "m2",
      eventTime: 60,
      status: { text: "", emoji: "", expiration: 0 },
    });
    // Assess
    expect(set.state.override?.status).toEqual(manual);
    expect(cleared.result).toBe("cleared");
    expect(cleared.state.override).toBeUndefined();
  });
});

describe("reconciliation with read-before-write, over days where user events are lost too", () => {
  const VERIFY = { verify: true };

  it("never overwrites or clears an active manual status, even one whose event was lost", () => {
    fc.assert(
      fc.property(lossyDays, (commands) => {
        // Prepare / Act
        const sim = simulate(commands, VERIFY);
        // Assess
        expect(sim.of("manual_never_overwritten")).toEqual([]);
      }),
      RUNS,
    );
  });

  it("does overwrite a manual status whose event was lost when it does not read first", () => {
    // Prepare: the same days without the read (the canary: the property above can fail).
    const unverified = fc.property(
      lossyDays,
      (commands) => simulate(commands).of("manual_never_overwritten").length === 0,
    );
    // Act
    const result = fc.check(unverified, { numRuns: 3000, seed: 7 });
    // Assess
    expect(result.failed).toBe(true);
  });

  it("keeps every other invariant: clear shape, set expiration, one write, own echoes", () => {
    fc.assert(
      fc.property(lossyDays, (commands) => {
        // Prepare / Act
        const sim = simulate(commands, VERIFY);
        // Assess
        expect(sim.of("clear_shape")).toEqual([]);
        expect(sim.of("set_expiration")).toEqual([]);
        expect(sim.of("one_write")).toEqual([]);
        expect(sim.of("echo_ours")).toEqual([]);
      }),
      RUNS,
    );
  });

  it("converges to the desired status once events stop arriving out of order, none lost", () => {
    fc.assert(
      fc.property(days, (commands) => {
        // Prepare / Act
        const sim = simulate(commands, VERIFY);
        // Assess
        expect(sim.converged()).toBe(true);
      }),
      RUNS,
    );
  });
});
