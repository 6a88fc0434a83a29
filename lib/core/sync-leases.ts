/**
 * The sync gate's lease times (the SyncGate port is in ./ports.ts). They are policy tied to the
 * Lambda timeouts, not part of the port's contract, and a file of constants alone lets the
 * bundler inline them where the gate adapters use them.
 */

/** How long a queued sync, not yet started, covers new pushes; after it they queue again. */
export const QUEUED_LEASE_MS = 60_000;
/**
 * How long a running sync's claim holds: the sync worker's Lambda timeout (serverless.yml), so
 * a live worker never loses its claim and a dead one's lapses. Each round renews it.
 */
export const RUN_LEASE_MS = 120_000;
