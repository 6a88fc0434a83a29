import type { OutOfOfficeRecord } from "../../app/ports";
import type { UserKey } from "../../core/types";
import { type Item, n, readN, readS, s, userPk } from "./codec";

/** A scheduled out-of-office entry; one item each, beside the user's other items. */

export const OOO_PREFIX = "OOO#";

export const oooKeys = (key: UserKey, id: string) => ({
  PK: userPk(key.team, key.user),
  SK: `${OOO_PREFIX}${id}`,
});

export function oooToItem(e: OutOfOfficeRecord): Item {
  const keys = oooKeys(e.key, e.id);
  return {
    PK: s(keys.PK),
    SK: s(keys.SK),
    type: s("ooo"),
    team: s(e.key.team),
    user: s(e.key.user),
    id: s(e.id),
    start: n(e.start),
    end: n(e.end),
    text: s(e.text),
    emoji: s(e.emoji),
    createdAt: n(e.createdAt),
    version: n(1),
  };
}

export function oooFromItem(item: Item): OutOfOfficeRecord {
  return {
    key: { team: readS(item, "team"), user: readS(item, "user") },
    id: readS(item, "id"),
    start: readN(item, "start"),
    end: readN(item, "end"),
    text: readS(item, "text"),
    emoji: readS(item, "emoji"),
    createdAt: readN(item, "createdAt"),
  };
}
