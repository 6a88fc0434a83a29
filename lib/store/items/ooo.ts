import type { OutOfOfficeRecord } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { TTL_ATTRIBUTE } from "../table";
import { type Item, n, readN, readS, s, userPk } from "./codec";
import { readUserKey, userItem } from "./item-head";

/**
 * A scheduled out-of-office entry; one item each, beside the user's other items. It expires
 * (TTL, in AWS only) a retention period after its end, so the user's partition stays small;
 * reads need no filter for it, as entries that ended are ignored by their `end` already.
 */

/** How long an ended entry is kept (for listings and support) before TTL deletes it. */
export const OOO_RETENTION_MS = 30 * 86_400_000;

export const OOO_PREFIX = "OOO#";

export const oooKeys = (key: UserKey, id: string) => ({
  PK: userPk(key.team, key.user),
  SK: `${OOO_PREFIX}${id}`,
});

export function oooToItem(e: OutOfOfficeRecord): Item {
  const keys = oooKeys(e.key, e.id);
  return {
    ...userItem(keys, "ooo", e.key),
    id: s(e.id),
    start: n(e.start),
    end: n(e.end),
    text: s(e.text),
    emoji: s(e.emoji),
    createdAt: n(e.createdAt),
    version: n(1),
    [TTL_ATTRIBUTE]: n(Math.ceil((e.end + OOO_RETENTION_MS) / 1000)),
  };
}

export function oooFromItem(item: Item): OutOfOfficeRecord {
  return {
    key: readUserKey(item),
    id: readS(item, "id"),
    start: readN(item, "start"),
    end: readN(item, "end"),
    text: readS(item, "text"),
    emoji: readS(item, "emoji"),
    createdAt: readN(item, "createdAt"),
  };
}
