import type { DueTransition } from "#lib/core/ports";
import type { StatusRecord, StatusState } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import { shardOf } from "../table";
import {
  type Item,
  n,
  packJson,
  readJsonPackedOrPlain,
  readN,
  readOptionalN,
  readS,
  s,
  userPk,
} from "./codec";
import { readUserKey, userItem } from "./item-head";

/**
 * The status item: actual status, last written, recent and attempted writes, manual override,
 * claimed write, `version` and next transition. The desired status is not stored: it is
 * recomputed from the user's timelines and out-of-office entries on every read, so it can never
 * disagree with them.
 */

/**
 * The state, packed (codec.ts packJson): ~1.8 KB of JSON made two write units of every status
 * write, the commonest write there is; packed, the whole item stays under 1 KB. Items written
 * before carry it as the JSON string `state` (STATE_PLAIN), still read.
 */
const STATE_PACKED = "stateZ";
const STATE_PLAIN = "state";

export const statusKeys = (key: UserKey) => ({ PK: userPk(key.team, key.user), SK: "STATUS" });

export function statusToItem(status: StatusRecord): Item {
  const keys = statusKeys(status.key);
  const item: Item = {
    ...userItem(keys, "status", status.key),
    version: n(status.version),
    updatedAt: n(status.updatedAt),
    [STATE_PACKED]: packJson(status.state),
  };
  if (status.nextTransitionAt !== undefined) {
    // Sparse index: only users with a transition ahead appear in it.
    item.GSI1PK = s(`DUE#${shardOf(keys.PK)}`);
    item.GSI1SK = n(status.nextTransitionAt);
    item.nextIsOoo = { BOOL: status.nextIsOoo === true };
  }
  if (status.enqueuedFor !== undefined) item.enqueuedFor = n(status.enqueuedFor);
  return item;
}

export function statusFromItem(item: Item): StatusRecord {
  const next = readOptionalN(item, "GSI1SK");
  const enqueuedFor = readOptionalN(item, "enqueuedFor");
  const ooo = item.nextIsOoo;
  return {
    key: readUserKey(item),
    state: readJsonPackedOrPlain<StatusState>(item, STATE_PACKED, STATE_PLAIN),
    version: readN(item, "version"),
    updatedAt: readN(item, "updatedAt"),
    ...(next !== undefined ? { nextTransitionAt: next } : {}),
    ...(ooo !== undefined && "BOOL" in ooo ? { nextIsOoo: ooo.BOOL === true } : {}),
    ...(enqueuedFor !== undefined ? { enqueuedFor } : {}),
  };
}

/**
 * A due index entry as the tick needs it: it projects the user, whether the transition starts an
 * out-of-office block and the transition already queued (lib/store/table.ts DUE_PROJECTION).
 */
export function dueFromEntry(entry: Item): DueTransition {
  const enqueuedFor = readOptionalN(entry, "enqueuedFor");
  const ooo = entry.nextIsOoo;
  return {
    key: { team: readS(entry, "team"), user: readS(entry, "user") },
    nextTransitionAt: readN(entry, "GSI1SK"),
    nextIsOoo: ooo !== undefined && "BOOL" in ooo && ooo.BOOL === true,
    ...(enqueuedFor !== undefined ? { enqueuedFor } : {}),
  };
}
