import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { n } from "./codec";

/**
 * The sync gate of one calendar source (the SyncGate port, lib/core/ports.ts): `queuedAt` while
 * a sync is queued and not yet started, `runner` and `runningSince` while one runs, and `dirty`
 * when a push came in during the run. Its own partition, so it never rides along in a user's
 * snapshot, and never meets the versioned writes of the user's items.
 */

export const SYNC_GATE_PREFIX = "SYNCGATE#";

export const syncGateKeys = (source: { team: string; user: string; sourceId: string }) => ({
  PK: `${SYNC_GATE_PREFIX}${source.team}#${source.user}`,
  SK: `SOURCE#${source.sourceId}`,
});

/** A gate idle this long is only garbage: TTL may delete it (its leases lapsed long before). */
const KEEP_MS = 86_400_000;

export const gateExpiry = (now: number): AttributeValue => n(Math.ceil((now + KEEP_MS) / 1000));

/** Attribute names, for the `#name` placeholders of every condition. */
export const GATE_NAMES = {
  "#queuedAt": "queuedAt",
  "#runner": "runner",
  "#runningSince": "runningSince",
  "#dirty": "dirty",
} as const;
