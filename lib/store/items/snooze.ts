import type { SnoozeRecord } from "#lib/core/dnd";
import type { UserKey } from "#lib/core/types";
import { type Item, n, readJson, readN, s, userPk } from "./codec";
import { readUserKey, userItem } from "./item-head";

/**
 * The Do Not Disturb item: the snooze Statuspilot set for a `dnd` block (what it asked for and
 * what the service answered) and a snooze call claimed but not yet answered. It lives in the
 * user's partition, so loadUser reads it with the rest and deleting the user deletes it.
 */

export const SNOOZE_SK = "DND";

export const snoozeKeys = (key: UserKey) => ({ PK: userPk(key.team, key.user), SK: SNOOZE_SK });

export function snoozeToItem(snooze: SnoozeRecord): Item {
  const keys = snoozeKeys(snooze.key);
  return {
    ...userItem(keys, "snooze", snooze.key),
    version: n(snooze.version),
    updatedAt: n(snooze.updatedAt),
    data: s(JSON.stringify({ ours: snooze.ours, claim: snooze.claim })),
  };
}

export function snoozeFromItem(item: Item): SnoozeRecord {
  const data = readJson<Pick<SnoozeRecord, "ours" | "claim">>(item, "data");
  return {
    key: readUserKey(item),
    ...(data.ours !== undefined ? { ours: data.ours } : {}),
    ...(data.claim !== undefined ? { claim: data.claim } : {}),
    version: readN(item, "version"),
    updatedAt: readN(item, "updatedAt"),
  };
}
