import type { UserKey } from "#lib/core/types";
import { type Item, readS, s } from "./codec";

/** The attributes every entity's item starts with: its keys and its type. */
export const typedItem = (keys: { PK: string; SK: string }, type: string): Item => ({
  PK: s(keys.PK),
  SK: s(keys.SK),
  type: s(type),
});

/** The start of a user's item: its keys, its type and whose it is (`team`, `user`). */
export const userItem = (keys: { PK: string; SK: string }, type: string, key: UserKey): Item => ({
  ...typedItem(keys, type),
  team: s(key.team),
  user: s(key.user),
});

/** Whose a user's item is (userItem wrote it). */
export const readUserKey = (item: Item): UserKey => ({
  team: readS(item, "team"),
  user: readS(item, "user"),
});
