import type { ChannelRecord } from "#lib/core/records";
import { type ChannelKind, isChannelKind } from "#lib/core/source-kinds";
import { CorruptItemError } from "../errors";
import { TTL_ATTRIBUTE } from "../table";
import { type Item, n, readN, readS, s, userPk } from "./codec";
import { readUserKey, userItem } from "./item-head";

/** Calendar push channel → user lookup (Google channel id, Graph subscription, hook id). */

export const channelKeys = (channelId: string) => ({ PK: `CHANNEL#${channelId}`, SK: "CHANNEL" });

/** The sort key prefix of a channel's pointer in its user's partition (see channelPointerItem). */
export const CHANNEL_POINTER_PREFIX = "CHANNEL#";

/**
 * A pointer to a channel, kept in its user's partition (`USER#team#user`, `CHANNEL#<id>`) so
 * deleting the user finds the channel. loadUser skips it; it carries no secret.
 */
export function channelPointerItem(c: ChannelRecord): Item {
  return {
    PK: s(userPk(c.key.team, c.key.user)),
    SK: s(`${CHANNEL_POINTER_PREFIX}${c.channelId}`),
    type: s("channel-pointer"),
    // A retired channel's pointer goes with it, so renewals leave nothing in the partition.
    ...(c.retiresAt !== undefined ? { [TTL_ATTRIBUTE]: retiredExpiry(c.retiresAt) } : {}),
  };
}

/** A retired binding is kept a day past its retirement (for support), then TTL may delete it. */
const retiredExpiry = (retiresAt: number) => n(Math.ceil((retiresAt + 86_400_000) / 1000));

export function channelToItem(c: ChannelRecord): Item {
  const keys = channelKeys(c.channelId);
  const item: Item = {
    ...userItem(keys, "channel", c.key),
    channelId: s(c.channelId),
    sourceId: s(c.sourceId),
    version: n(c.version),
  };
  if (c.secretSealed !== undefined) item.secretSealed = s(c.secretSealed);
  if (c.kind !== undefined) item.kind = s(c.kind);
  if (c.retiresAt !== undefined) {
    item.retiresAt = n(c.retiresAt);
    item[TTL_ATTRIBUTE] = retiredExpiry(c.retiresAt);
  }
  return item;
}

export function channelFromItem(item: Item): ChannelRecord {
  return {
    channelId: readS(item, "channelId"),
    key: readUserKey(item),
    sourceId: readS(item, "sourceId"),
    ...(item.secretSealed !== undefined ? { secretSealed: readS(item, "secretSealed") } : {}),
    ...(item.kind !== undefined ? { kind: readChannelKind(item) } : {}),
    ...(item.retiresAt !== undefined ? { retiresAt: readN(item, "retiresAt") } : {}),
    version: readN(item, "version"),
  };
}

/** A stored kind must be one the registry's push providers have. */
function readChannelKind(item: Item): ChannelKind {
  const kind = readS(item, "kind");
  if (!isChannelKind(kind)) {
    throw new CorruptItemError("/kind", `channel ${readS(item, "channelId")} has kind ${kind}`);
  }
  return kind;
}
