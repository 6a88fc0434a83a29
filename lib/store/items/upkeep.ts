import type { UserKey } from "#lib/core/types";
import type { UpkeepDue, UpkeepEntry } from "#lib/core/upkeep-schedule";
import { type Item, n, readN, readOptionalN, readS, s, userPk } from "./codec";
import { readUserKey, userItem } from "./item-head";

/**
 * A connected source's push upkeep entry: one item in its user's partition
 * (`USER#team#user`, `UPKEEP#<sourceId>`), so deleting the user deletes it, and loadUser skips
 * it. It sits in the due index under its own partition key, UPKEEP_DUE_PARTITION, sorted by
 * the next upkeep instant: the tick reads the entries due with one Query, never the status
 * items' partitions, and an entry is recognised by its key alone (the index always carries the
 * table's keys), so it needs nothing added to the index's projection. One partition, not
 * sharded: an entry is written about once per channel lifetime (and per retry), far below a
 * partition's limits.
 */

export const UPKEEP_PREFIX = "UPKEEP#";
export const UPKEEP_DUE_PARTITION = "UPKEEP";

export const upkeepKeys = (key: UserKey, sourceId: string) => ({
  PK: userPk(key.team, key.user),
  SK: `${UPKEEP_PREFIX}${sourceId}`,
});

/** Attribute names, for the `#name` placeholders of a claim (each is used: DynamoDB refuses unused ones). */
export const UPKEEP_CLAIM_NAMES = {
  "#pk": "PK",
  "#duePk": "GSI1PK",
  "#dueAt": "GSI1SK",
  "#leaseUntil": "leaseUntil",
} as const;

export function upkeepToItem(e: UpkeepEntry): Item {
  const keys = upkeepKeys(e.key, e.sourceId);
  return {
    ...userItem(keys, "push-upkeep", e.key),
    GSI1PK: s(UPKEEP_DUE_PARTITION),
    GSI1SK: n(e.dueAt),
    failures: n(e.failures),
  };
}

/** A parked entry: kept in the partition, out of the due index (no index keys). */
export function parkedUpkeepItem(key: UserKey, sourceId: string): Item {
  const keys = upkeepKeys(key, sourceId);
  return {
    ...userItem(keys, "push-upkeep", key),
    failures: n(0),
  };
}

/** The entry as stored (a full item, or the old image of a claim). */
export function upkeepFromItem(item: Item): UpkeepEntry {
  return { ...upkeepDueOf(item), failures: readOptionalN(item, "failures") ?? 0 };
}

/** What the due index holds of an entry: its keys, the user's and the instant. */
export function upkeepDueOf(item: Item): UpkeepDue {
  return {
    key: readUserKey(item),
    sourceId: readS(item, "SK").slice(UPKEEP_PREFIX.length),
    dueAt: readN(item, "GSI1SK"),
  };
}
