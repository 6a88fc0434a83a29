import type { AttributeValue, DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { GateClaim, GateFinish, GateRequest, SourceRef, SyncGate } from "#lib/core/ports";
import { QUEUED_LEASE_MS, RUN_LEASE_MS } from "#lib/core/sync-leases";
import { conditionalUpdate } from "./conditional-update";
import { StoreError } from "./errors";
import { n, s } from "./items/codec";
import { GATE_NAMES, gateExpiry, syncGateKeys } from "./items/sync-gate";
import { TTL_ATTRIBUTE } from "./table";

// The named parts every condition is built from. `:queuedStale` and `:runStale` are now minus
// the lease: a queued mark or a running claim made at or before them has lapsed.
/** A sync is queued and has not started. */
const QUEUED = "(attribute_exists(#queuedAt) AND #queuedAt > :queuedStale)";
const NOTHING_QUEUED = "(attribute_not_exists(#queuedAt) OR #queuedAt <= :queuedStale)";
/** A live sync is running. */
const RUNNING = "(attribute_exists(#runner) AND #runningSince > :runStale)";
const NOTHING_RUNNING = "(attribute_not_exists(#runner) OR #runningSince <= :runStale)";
/** The sync running is `:owner`'s (its claim may have lapsed: no one else took it). */
const OWNED = "#runner = :owner";

/** Each step is one conditional write; a lost race retries from the first, this many times. */
const MAX_ATTEMPTS = 5;

interface Update {
  update: string;
  condition: string;
  values: Record<string, AttributeValue>;
}

/**
 * The sync gate in DynamoDB: one item per source, changed only by conditional UpdateItems, so
 * concurrent hooks and workers agree on whether a sync is queued or running without a lock.
 */
export class DynamoSyncGate implements SyncGate {
  private readonly queuedLeaseMs: number;
  private readonly runLeaseMs: number;

  constructor(
    private readonly client: DynamoDBClient,
    private readonly tableName: string,
    leases: { queuedMs?: number; runMs?: number } = {},
  ) {
    this.queuedLeaseMs = leases.queuedMs ?? QUEUED_LEASE_MS;
    this.runLeaseMs = leases.runMs ?? RUN_LEASE_MS;
  }

  async request(source: SourceRef, now: number): Promise<GateRequest> {
    const values = { ...this.stale(now), ":now": n(now), ":ttl": gateExpiry(now) };
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const queued = await this.apply(source, {
        update: "SET #queuedAt = :now, #ttl = :ttl",
        condition: `${NOTHING_QUEUED} AND ${NOTHING_RUNNING}`,
        values,
      });
      if (queued) return "queue";
      // A running sync may have fetched before this push: it must run once more.
      const marked = await this.apply(source, {
        update: "SET #dirty = :true",
        condition: RUNNING,
        values: { ...values, ":true": { BOOL: true } },
      });
      if (marked) return "joined";
      // A queued sync has not fetched yet: it will see this push's change.
      const joined = await this.apply(source, {
        update: "SET #ttl = :ttl",
        condition: QUEUED,
        values,
      });
      if (joined) return "joined";
      // The sync finished between the steps: start over.
    }
    // The state kept changing under us: one more sync is always safe.
    return "queue";
  }

  async withdraw(source: SourceRef, queuedAt: number): Promise<void> {
    await this.apply(source, {
      update: "REMOVE #queuedAt",
      condition: "#queuedAt = :queuedAt",
      values: { ":queuedAt": n(queuedAt) },
    });
  }

  async claim(source: SourceRef, owner: string, now: number): Promise<GateClaim> {
    const values = {
      ...this.stale(now),
      ":owner": s(owner),
      ":now": n(now),
      ":ttl": gateExpiry(now),
    };
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      // Claiming ends "queued": pushes from now on must not join a sync that may be fetching.
      const claimed = await this.apply(source, {
        update: "SET #runner = :owner, #runningSince = :now, #ttl = :ttl REMOVE #queuedAt, #dirty",
        condition: `${NOTHING_RUNNING} OR ${OWNED}`,
        values,
      });
      if (claimed) return "claimed";
      const handedOver = await this.apply(source, {
        update: "SET #dirty = :true",
        condition: `${RUNNING} AND #runner <> :owner`,
        values: { ...values, ":true": { BOOL: true } },
      });
      if (handedOver) return "handed_over";
    }
    throw new StoreError(
      `sync gate of ${source.sourceId} kept changing; the message will be retried`,
      "conflict",
    );
  }

  async finish(source: SourceRef, owner: string, now: number): Promise<GateFinish> {
    const values = { ":owner": s(owner), ":ttl": gateExpiry(now) };
    const done = await this.apply(source, {
      update: "REMOVE #runner, #runningSince SET #ttl = :ttl",
      condition: `${OWNED} AND attribute_not_exists(#dirty)`,
      values,
    });
    if (done) return "done";
    const again = await this.apply(source, {
      update: "SET #runningSince = :now, #ttl = :ttl REMOVE #dirty",
      condition: OWNED,
      values: { ...values, ":now": n(now) },
    });
    // Not ours any more: our claim lapsed and another sync took the source; it covers the rest.
    return again ? "again" : "done";
  }

  async release(source: SourceRef, owner: string): Promise<void> {
    await this.apply(source, {
      update: "REMOVE #runner, #runningSince, #dirty",
      condition: OWNED,
      values: { ":owner": s(owner) },
    });
  }

  private stale(now: number): Record<string, AttributeValue> {
    return { ":queuedStale": n(now - this.queuedLeaseMs), ":runStale": n(now - this.runLeaseMs) };
  }

  /** True when the write was applied, false when its condition refused it. */
  private async apply(source: SourceRef, u: Update): Promise<boolean> {
    const text = `${u.update} ${u.condition}`;
    // DynamoDB refuses placeholders an expression does not use: pass only the used ones.
    const names = Object.fromEntries(
      Object.entries({ ...GATE_NAMES, "#ttl": TTL_ATTRIBUTE }).filter(([k]) => text.includes(k)),
    );
    const values = Object.fromEntries(
      Object.entries(u.values).filter(([k]) => new RegExp(`${k}\\b`).test(text)),
    );
    return conditionalUpdate(this.client, this.tableName, syncGateKeys(source), {
      UpdateExpression: u.update,
      ConditionExpression: u.condition,
      ExpressionAttributeNames: names,
      ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
    });
  }
}
