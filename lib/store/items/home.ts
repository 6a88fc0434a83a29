import type { HomeRecord } from "#lib/core/notice-store";
import type { UserKey } from "#lib/core/types";
import { type Item, n, readN, readS, s, userPk } from "./codec";
import { readUserKey, userItem } from "./item-head";

/**
 * The Home view last published for a person: one item in their partition (`USER#team#user`,
 * `HOME`), so deleting the user deletes it; a person without an install gets one of their own.
 */

export const homeKeys = (key: UserKey) => ({ PK: userPk(key.team, key.user), SK: "HOME" });

export function homeToItem(h: HomeRecord): Item {
  const keys = homeKeys(h.key);
  return {
    ...userItem(keys, "home", h.key),
    hash: s(h.hash),
    publishedAt: n(h.publishedAt),
  };
}

export const homeFromItem = (item: Item): HomeRecord => ({
  key: readUserKey(item),
  hash: readS(item, "hash"),
  publishedAt: readN(item, "publishedAt"),
});
