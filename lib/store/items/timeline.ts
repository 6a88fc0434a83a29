import type { TimelineRecord } from "#lib/core/records";
import type { Block, UserKey } from "#lib/core/types";
import { type Item, n, packJson, readJsonPackedOrPlain, readN, readS, s, userPk } from "./codec";
import { readUserKey, userItem } from "./item-head";

/** One calendar source's resolved blocks for the horizon, with the feed's ETag and hash. */

export const TIMELINE_PREFIX = "TIMELINE#";
/**
 * The blocks, packed (codec.ts packJson): a day's blocks as JSON were ~4.7 KB, five write units
 * a sync and more than a read unit of every load of the user. Items written before carry them as
 * the JSON string `blocks` (BLOCKS_PLAIN), still read.
 */
const BLOCKS_PACKED = "blocksZ";
const BLOCKS_PLAIN = "blocks";

export const timelineKeys = (key: UserKey, sourceId: string) => ({
  PK: userPk(key.team, key.user),
  SK: `${TIMELINE_PREFIX}${sourceId}`,
});

export function timelineToItem(t: TimelineRecord): Item {
  const keys = timelineKeys(t.key, t.sourceId);
  const item: Item = {
    ...userItem(keys, "timeline", t.key),
    sourceId: s(t.sourceId),
    version: n(t.version),
    updatedAt: n(t.updatedAt),
    [BLOCKS_PACKED]: packJson(t.blocks),
  };
  if (t.etag !== undefined) item.etag = s(t.etag);
  if (t.hash !== undefined) item.hash = s(t.hash);
  return item;
}

export function timelineFromItem(item: Item): TimelineRecord {
  return {
    key: readUserKey(item),
    sourceId: readS(item, "sourceId"),
    blocks: readJsonPackedOrPlain<Block[]>(item, BLOCKS_PACKED, BLOCKS_PLAIN),
    ...(item.etag !== undefined ? { etag: readS(item, "etag") } : {}),
    ...(item.hash !== undefined ? { hash: readS(item, "hash") } : {}),
    version: readN(item, "version"),
    updatedAt: readN(item, "updatedAt"),
  };
}
