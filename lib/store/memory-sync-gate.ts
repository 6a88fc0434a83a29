import type { GateClaim, GateFinish, GateRequest, SourceRef, SyncGate } from "#lib/core/ports";
import { QUEUED_LEASE_MS, RUN_LEASE_MS } from "#lib/core/sync-leases";

/** One source's gate; the same fields as the DynamoDB gate item (lib/store/items/sync-gate.ts). */
interface GateState {
  queuedAt?: number;
  runner?: string;
  runningSince?: number;
  dirty?: true;
}

/**
 * The sync gate in memory, with the DynamoDB gate's rules (test/contract/sync-gate.contract.ts).
 * One process holds it, so each step is atomic without conditions or retries.
 */
export class MemorySyncGate implements SyncGate {
  private readonly queuedLeaseMs: number;
  private readonly runLeaseMs: number;
  private readonly gates = new Map<string, GateState>();

  constructor(leases: { queuedMs?: number; runMs?: number } = {}) {
    this.queuedLeaseMs = leases.queuedMs ?? QUEUED_LEASE_MS;
    this.runLeaseMs = leases.runMs ?? RUN_LEASE_MS;
  }

  async request(source: SourceRef, now: number): Promise<GateRequest> {
    const gate = this.gate(source);
    if (this.running(gate, now)) {
      // A running sync may have fetched before this push: it must run once more.
      gate.dirty = true;
      return "joined";
    }
    // A queued sync has not fetched yet: it will see this push's change.
    if (this.queued(gate, now)) return "joined";
    gate.queuedAt = now;
    return "queue";
  }

  async withdraw(source: SourceRef, queuedAt: number): Promise<void> {
    const gate = this.gate(source);
    if (gate.queuedAt === queuedAt) delete gate.queuedAt;
  }

  async claim(source: SourceRef, owner: string, now: number): Promise<GateClaim> {
    const gate = this.gate(source);
    if (this.running(gate, now) && gate.runner !== owner) {
      gate.dirty = true;
      return "handed_over";
    }
    // Claiming ends "queued": pushes from now on must not join a sync that may be fetching.
    gate.runner = owner;
    gate.runningSince = now;
    delete gate.queuedAt;
    delete gate.dirty;
    return "claimed";
  }

  async finish(source: SourceRef, owner: string, now: number): Promise<GateFinish> {
    const gate = this.gate(source);
    // Not ours any more: our claim lapsed and another sync took the source; it covers the rest.
    if (gate.runner !== owner) return "done";
    if (gate.dirty) {
      gate.runningSince = now;
      delete gate.dirty;
      return "again";
    }
    delete gate.runner;
    delete gate.runningSince;
    return "done";
  }

  async release(source: SourceRef, owner: string): Promise<void> {
    const gate = this.gate(source);
    if (gate.runner !== owner) return;
    delete gate.runner;
    delete gate.runningSince;
    delete gate.dirty;
  }

  private queued(gate: GateState, now: number): boolean {
    return gate.queuedAt !== undefined && gate.queuedAt > now - this.queuedLeaseMs;
  }

  private running(gate: GateState, now: number): boolean {
    return (
      gate.runner !== undefined &&
      gate.runningSince !== undefined &&
      gate.runningSince > now - this.runLeaseMs
    );
  }

  private gate(source: SourceRef): GateState {
    const id = JSON.stringify([source.team, source.user, source.sourceId]);
    let gate = this.gates.get(id);
    if (!gate) {
      gate = {};
      this.gates.set(id, gate);
    }
    return gate;
  }
}
