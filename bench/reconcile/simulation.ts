import { decide, type Situation, type WriteStep } from "#lib/core/reconcile/decision";
import { initialStatusState } from "#lib/core/reconcile/state";
import { applyObservation } from "#lib/core/reconcile/user-change";
import { recordWrite, releaseWrite } from "#lib/core/reconcile/write-outcome";
import type { StatusState } from "#lib/core/records";
import {
  type Block,
  effectiveStatus,
  isEmptyStatus,
  type StatusValue,
  sameStatus,
} from "#lib/core/types";
import type { Command } from "./commands";
import { RestoreOracle } from "./restore-oracle";

/*
 * A simulated day: a service holding the status (clearing it at its expiration, silently),
 * a user who sets and clears statuses, a desired timeline that keeps changing, and an event
 * channel that delays, duplicates and reorders every `user_change`, and loses echoes of our
 * own writes. Our writes go through the reconciler's phases: claimed, in flight (the service
 * applies it some time later), then recorded, or failed after or before the service applied
 * it, or applied but the record step failed (the claim stays until its lease runs out).
 * Every user action happens in its own second, as the service's event_time has one-second
 * resolution, unless the command asks for a tie with our previous write; two writes of ours
 * may share a second. A user action during a flight otherwise comes after the service applied
 * our write. The echo of a write whose outcome we could not record (the call failed, or the
 * record step did) is delayed but never lost.
 *
 * The reconciler takes the steps of the one decision (lib/core/reconcile/decision.ts `decide`):
 * it reads the profile when the decision asks (an override stands, or a tie; with `verify`,
 * before every write too) and decides again with what the read showed. The oracle here is the
 * service's own state and the rules restated, never the reconciler's beliefs; with
 * `standing: "restore"`, what the profile should show is restated from what the person did
 * (./restore-oracle.ts).
 */

export const LEASE_MS = 30_000;

const KINDS = [
  { kind: "meeting", text: "In a meeting", emoji: ":calendar:" },
  { kind: "focus", text: "Focusing", emoji: ":headphones:" },
  { kind: "ooo", text: "Out of office", emoji: ":palm_tree:" },
] as const;

interface PendingEvent {
  eventId: string;
  eventTime: number;
  status: StatusValue;
  ours: boolean;
  /** The echo of a write whose outcome we could not record is all we learn of it. */
  kept?: boolean;
}

export type Invariant =
  | "clear_shape"
  | "set_expiration"
  | "manual_kept"
  | "manual_never_overwritten"
  | "one_write"
  | "echo_ours"
  /** Restore mode: a write went over a status of the person's that the rules say stands. */
  | "person_status_kept"
  /** Restore mode: a restore wrote something other than what should show. */
  | "restore_standing";

export interface SimulationOptions {
  /** Read the profile before every write (the reconciler's `verifyBeforeWrite`). */
  verify: boolean;
  /** The person's rule for a status they set with no expiry (default `keep`). */
  standing?: "keep" | "restore";
  /**
   * The person's own events arrive at once, in order (ours are still delayed, doubled,
   * reordered and lost): what the reconciler can know is then what the person did.
   */
  promptUserEvents?: boolean;
}

export class Simulation {
  now = Date.UTC(2025, 2, 3, 8, 0, 0);
  service: StatusValue = { text: "", emoji: "", expiration: 0 };
  serviceByUser = false;
  /** Restore mode's oracle: what the profile should show, from what the person did. */
  readonly person = new RestoreOracle();
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
  /** `users.profile.get` calls and `users.profile.set` calls sent. */
  reads = 0;
  writes = 0;
  /** Every `users.profile.set` sent, and when. */
  sent: Array<{ status: StatusValue; at: number }> = [];
  /**
   * A write of ours went out in the second the previous one went out or was applied: its
   * echo and a user's change in that second look alike, so the reconciler may read.
   */
  oursShareASecond = false;
  private previousWrite: { sent: number; applied?: number } | undefined;

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
      // The reconciler wakes at every block start, whatever override it believes in.
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
    const situation: Situation = {
      record: { key: { team: "T1", user: "U1" }, state: this.state, version: 1, updatedAt: 0 },
      timeline: this.timeline,
      now: this.now,
      policy: {
        paused: false,
        leaseMs: LEASE_MS,
        verifyBeforeWrite: this.options.verify,
        inFlightRecheckMs: 1_000,
        standing: this.options.standing ?? "keep",
      },
    };
    let next = decide(situation);
    // Something else is due once the write in flight lands: a reconcile comes back for it.
    if (next.status.kind === "wait") {
      this.recheck = true;
      return;
    }
    if (this.inFlight !== undefined) return;
    if (next.status.kind === "read") {
      // The read shows the service's profile as it is now, lost events or not.
      this.reads++;
      next = decide({ ...situation, read: { kind: "shown", status: this.service, at: this.now } });
      this.state = next.record.state;
    }
    const write = next.status;
    if (write.kind !== "set" && write.kind !== "clear") return;
    const status = write.status;
    this.check(write, status);
    this.writes++;
    this.sent.push({ status, at: this.now });
    const second = Math.floor(this.now / 1000);
    const previous = this.previousWrite;
    if (previous !== undefined && (previous.sent === second || previous.applied === second)) {
      this.oursShareASecond = true;
    }
    this.previousWrite = { sent: second };
    // The decision claimed the write on the record it gave.
    this.state = next.record.state;
    this.inFlight = { status, sentAt: this.now, landed: false };
  }

  private land(): void {
    const flight = this.inFlight;
    if (flight === undefined || flight.landed) return;
    this.service = flight.status;
    this.serviceByUser = false;
    if (this.previousWrite !== undefined) this.previousWrite.applied = Math.floor(this.now / 1000);
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

  private check(decision: WriteStep, status: StatusValue): void {
    if (
      decision.kind === "clear" &&
      (status.text !== "" || status.emoji !== "" || status.expiration !== 0)
    ) {
      this.violations.push({
        invariant: "clear_shape",
        message: "a clear did not send text, emoji and expiration 0 together",
      });
    }
    if (this.restoring) {
      this.checkRestore(decision, status);
    } else if (decision.kind === "set") {
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
    if (manualShowing && this.restoring) {
      // Only the due block's own set may go over the person's standing status from before it.
      const block = this.desiredNow();
      const blockSet = block !== undefined && status.expiration === block.expiration;
      if (!blockSet || this.person.stands(this.service, block)) {
        this.violations.push({
          invariant: "person_status_kept",
          message: `a ${decision.kind} went over a status of the person's that stands`,
        });
      }
    } else if (manualShowing && this.delivered.has(this.userEventId)) {
      this.violations.push({
        invariant: "manual_kept",
        message: "overwrote an active manual status we knew about",
      });
    }
    if (manualShowing && !this.restoring) {
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

  private get restoring(): boolean {
    return this.options.standing === "restore";
  }

  /** The block showing now, unless it ends within this second (its status expires on arrival). */
  private showingNow(): Block | undefined {
    const block = this.desiredNow();
    return block === undefined || block.expiration <= Math.floor(this.now / 1000)
      ? undefined
      : block;
  }

  /** What the profile should show now in restore mode (the oracle). */
  expectedNow(): StatusValue {
    return this.person.expected(this.now, this.showingNow(), this.service);
  }

  /** Restore mode: a set is its block's (expiring at its end) or what should show (a restore). */
  private checkRestore(decision: WriteStep, status: StatusValue): void {
    if (decision.kind !== "set") return;
    if (status.expiration === 0) {
      if (!sameStatus(status, this.expectedNow())) {
        this.violations.push({
          invariant: "restore_standing",
          message: `restored "${status.text}" where "${this.expectedNow().text}" should show`,
        });
      }
      return;
    }
    const block = this.desiredNow();
    if (status.expiration * 1000 <= this.now || block?.expiration !== status.expiration) {
      this.violations.push({
        invariant: "set_expiration",
        message: "a set's expiration differs from its block's end",
      });
    }
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

  private userActs(command: Extract<Command, { t: "user" }>): void {
    const flight = this.inFlight;
    if (flight !== undefined && !flight.landed) {
      if (command.tie === undefined) {
        this.land();
        this.tickSecond(1);
      } else if (command.tie.first === "ours") {
        this.land();
      }
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
    this.person.acts(status, this.now, this.service);
    this.service = status;
    this.serviceByUser = !isEmptyStatus(status);
    this.userEventId = this.emit(status, false);
    this.newEpoch();
    const own = this.events.find((e) => e.eventId === this.userEventId);
    if (this.options.promptUserEvents === true && own !== undefined) {
      this.events.splice(this.events.indexOf(own), 1);
      this.deliver(own);
    }
    // The user was first: our write in flight lands over their change, in the same second.
    if (command.tie?.first === "user") this.land();
    // Nothing of ours shares the second of a user's action unless the command asked for it.
    this.tickSecond((1000 - (this.now % 1000)) / 1000);
  }

  run(command: Command): void {
    const tie = command.t === "user" && command.tie !== undefined;
    this.tickSecond(tie ? 0 : command.t === "timeline" && command.quick ? 0.1 : 1);
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
          this.timeline.push(blockOf(spec.kind, start, end));
          cursor = end;
        }
        this.newEpoch();
        this.reconcile();
        return;
      }
      case "user":
        this.userActs(command);
        return;
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
        // A user's own change whose event never arrives: a set's, or a clear's.
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
    this.deliverInOrder();
  }

  private deliverInOrder(): void {
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

  /**
   * A new block appears after every other one, and the day runs to its start: the reconciler
   * wakes there and must show it, unless a manual status is still on the profile, whatever it
   * believed (a lost clear must not stop the user's automation for good).
   */
  startNextBlock(): void {
    const after = Math.max(this.now, ...this.timeline.map((b) => b.end));
    const start = (Math.floor(after / 60_000) + 2) * 60_000;
    this.timeline = [...this.timeline, blockOf(1, start, start + 30 * 60_000)];
    // The sync that brings it reconciles (nothing new is due yet).
    this.reconcile();
    this.tickSecond((start - this.now) / 1000);
    this.flush();
    this.finish("ok", true);
    this.deliverInOrder();
  }

  /** The day runs past the end of every block: the reconciler wakes there (a restore is due). */
  endAllBlocks(): void {
    const last = Math.max(this.now, ...this.timeline.map((b) => b.end));
    this.tickSecond((last + 2_000 - this.now) / 1000);
    this.flush();
    this.finish("ok", true);
    this.deliverInOrder();
  }

  converged(): boolean {
    const shown = effectiveStatus(this.service, this.now);
    if (this.restoring) return sameStatus(shown, this.expectedNow());
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

function blockOf(kind: 0 | 1 | 2, start: number, end: number): Block {
  const k = KINDS[kind];
  return { start, end, kind: k.kind, text: k.text, emoji: k.emoji, expiration: end / 1000 };
}

/** Runs one random day to the end, events settled. */
export function simulate(commands: Command[], options?: SimulationOptions): Simulation {
  const sim = new Simulation(options);
  for (const command of commands) sim.run(command);
  sim.settle();
  return sim;
}
