import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Decision, decide, decisionStatus } from "../../../lib/core/decide";
import {
  applyObservation,
  effectiveStatus,
  initialStatusState,
  recordWrite,
  type StatusState,
} from "../../../lib/core/status-state";
import { type Block, isEmptyStatus, type StatusValue } from "../../../lib/core/types";

/*
 * A simulated day: a service holding the status (clearing it at its expiration, silently),
 * a user who sets and clears statuses, a desired timeline that keeps changing, and an event
 * channel that delays, duplicates and reorders every `user_change`, and loses echoes of our
 * own writes. Every user action happens in its own second, as the service's event_time has
 * one-second resolution; two writes of ours may share a second.
 */

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
  | { t: "reconcile" };

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
);

interface PendingEvent {
  eventId: string;
  eventTime: number;
  status: StatusValue;
  ours: boolean;
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
  writesThisEpoch = 0;
  nextEventId = 0;
  violations: string[] = [];

  private desiredNow(): Block | undefined {
    return this.timeline.find((b) => b.start <= this.now && this.now < b.end);
  }

  private desiredKey(): string {
    const b = this.desiredNow();
    return b === undefined ? "none" : `${b.text}|${b.expiration}`;
  }

  private newEpoch(): void {
    this.writesThisEpoch = 0;
  }

  private emit(status: StatusValue, ours: boolean): string {
    const eventId = `ev${this.nextEventId++}`;
    this.events.push({ eventId, eventTime: Math.floor(this.now / 1000), status, ours });
    return eventId;
  }

  private tickSecond(seconds: number): void {
    const before = this.desiredKey();
    this.now += seconds * 1000;
    const expired = effectiveStatus(this.service, this.now);
    if (expired !== this.service) {
      this.service = expired;
      this.serviceByUser = false;
      this.newEpoch();
    }
    if (this.desiredKey() !== before) this.newEpoch();
  }

  reconcile(): void {
    const decision: Decision = decide({
      desired: this.desiredNow(),
      actual: this.state.actual.status,
      lastWritten: this.state.lastWritten,
      override: this.state.override?.status,
      now: this.now,
    });
    const status = decisionStatus(decision);
    if (status === undefined) return;
    this.check(decision, status);
    this.service = status;
    this.serviceByUser = false;
    this.emit(status, true);
    this.state = recordWrite(this.state, status, this.now);
  }

  private check(decision: Decision, status: StatusValue): void {
    if (
      decision.kind === "clear" &&
      (status.text !== "" || status.emoji !== "" || status.expiration !== 0)
    ) {
      this.violations.push("a clear did not send text, emoji and expiration 0 together");
    }
    if (decision.kind === "set") {
      const block = this.desiredNow();
      if (status.expiration * 1000 <= this.now) this.violations.push("a set expires in the past");
      if (block === undefined || status.expiration !== Math.floor(block.end / 1000)) {
        this.violations.push("a set's expiration differs from its block's end");
      }
    }
    const manualShowing =
      this.serviceByUser && !isEmptyStatus(effectiveStatus(this.service, this.now));
    if (manualShowing && this.delivered.has(this.userEventId)) {
      this.violations.push("overwrote an active manual status we knew about");
    }
    this.writesThisEpoch += 1;
    if (this.writesThisEpoch > 1) this.violations.push("one transition produced two writes");
  }

  private deliver(event: PendingEvent): void {
    this.delivered.add(event.eventId);
    const applied = applyObservation(this.state, event);
    if (event.ours && applied.result === "manual") {
      this.violations.push("the echo of our own write was taken for a manual change");
    }
    this.state = applied.state;
    this.reconcile();
  }

  run(command: Command): void {
    this.tickSecond(command.t === "timeline" && command.quick ? 0.1 : 1);
    switch (command.t) {
      case "advance":
        this.tickSecond(command.seconds);
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
        const echoes = this.events.filter((e) => e.ours);
        const victim = echoes[command.index % Math.max(1, echoes.length)];
        if (victim !== undefined) this.events.splice(this.events.indexOf(victim), 1);
        return;
      }
      case "reconcile":
        this.reconcile();
        return;
    }
  }

  /** Events stop arriving out of order: everything left arrives in time order. */
  settle(): void {
    this.tickSecond(1);
    const remaining = [...this.events].sort((a, b) => a.eventTime - b.eventTime);
    this.events = [];
    for (const event of remaining) this.deliver(event);
    this.reconcile();
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

describe("reconciliation over random days of events", () => {
  it("keeps every invariant and converges once events arrive in order", () => {
    fc.assert(
      fc.property(fc.array(commandArb, { minLength: 1, maxLength: 60 }), (commands) => {
        // Prepare
        const sim = new Simulation();
        // Act
        for (const command of commands) sim.run(command);
        sim.settle();
        // Assess
        expect(sim.violations).toEqual([]);
        expect(sim.converged()).toBe(true);
      }),
      { numRuns: 400 },
    );
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
