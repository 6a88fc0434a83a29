import { type Block, effectiveStatus, type StatusValue } from "#lib/core/types";
import { Simulation } from "./simulation";

/*
 * A quiet day through the reconciler's pure core (./simulation.ts): a timeline of blocks, and a
 * person who, in restore mode, set a standing status of their own before the first one and does
 * nothing else. Every write is applied and every event arrives at once, in order; the reconciler
 * wakes at each block's start and end. What the profile showed at each of those instants is
 * kept for an oracle to judge, with every write sent. The reconcile property tests and
 * `statuspilot bench` (calls per block) run it.
 */

export interface QuietDay {
  /** What the profile showed a second after each instant (block starts, ends). */
  shown: Array<{ at: number; status: StatusValue }>;
  /** Every `users.profile.set` sent (a restore has expiration 0), and the reads. */
  sent: Array<{ status: StatusValue; at: number }>;
  reads: number;
  /** The person's standing status (restore mode), what should show when no block does. */
  standing: StatusValue | undefined;
}

/** When the day starts: blocks are placed from here on. */
export const QUIET_DAY_START = Date.UTC(2025, 2, 3, 8, 0, 0);

export function runQuietDay(timeline: Block[], mode: "keep" | "restore"): QuietDay {
  const sim = new Simulation({ verify: false, standing: mode, promptUserEvents: true });
  const shown: QuietDay["shown"] = [];
  const deliverAll = (): void => {
    sim.run({ t: "finish", outcome: "ok", applied: true });
    while (sim.events.length > 0) sim.run({ t: "deliver", index: 0, duplicate: false });
    sim.run({ t: "finish", outcome: "ok", applied: true });
  };
  if (mode === "restore") sim.run({ t: "user", manual: 0, expiresInMin: null });
  const standing = mode === "restore" ? effectiveStatus(sim.service, sim.now) : undefined;
  deliverAll();
  // The sync that brings the timeline reconciles.
  sim.timeline = timeline;
  sim.reconcile();
  deliverAll();
  const edges = [...new Set(timeline.flatMap((b) => [b.start, b.end]))].sort((a, b) => a - b);
  for (const edge of edges) {
    if (edge <= sim.now) continue;
    // `advance` ticks one second before its own: it lands on the edge, then reconciles.
    sim.run({ t: "advance", seconds: Math.max(0, (edge - sim.now) / 1000 - 1) });
    deliverAll();
    shown.push({ at: edge, status: effectiveStatus(sim.service, sim.now) });
  }
  return { shown, sent: sim.sent, reads: sim.reads, standing };
}
