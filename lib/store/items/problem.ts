import type { ProblemRecord } from "#lib/core/notice-store";
import type { UserKey } from "#lib/core/types";
import { type Item, n, readN, readOptionalN, readS, s, userPk } from "./codec";
import { readUserKey, userItem } from "./item-head";

/**
 * A person's problem record (lib/core/problems.ts): one item per problem in the user's partition
 * (`USER#team#user`, `PROBLEM#<kind>[#<sourceId>]`), so deleting the user deletes it and
 * loadUser skips it. It sorts before PROFILE, never between PROFILE and STATUS.
 */

export const PROBLEM_PREFIX = "PROBLEM#";

export const problemKeys = (key: UserKey, id: string) => ({
  PK: userPk(key.team, key.user),
  SK: `${PROBLEM_PREFIX}${id}`,
});

const UNTOLD = new Set<string>(["dms_off", "no_bot_token", "refused"]);

export function problemToItem(p: ProblemRecord): Item {
  const keys = problemKeys(p.key, p.id);
  return {
    ...userItem(keys, "problem", p.key),
    openedAt: n(p.openedAt),
    ...(p.toldAt !== undefined ? { toldAt: n(p.toldAt) } : {}),
    ...(p.untold !== undefined ? { untold: s(p.untold) } : {}),
  };
}

export function problemFromItem(item: Item): ProblemRecord {
  const toldAt = readOptionalN(item, "toldAt");
  const untold = item.untold !== undefined ? readS(item, "untold") : undefined;
  return {
    key: readUserKey(item),
    id: readS(item, "SK").slice(PROBLEM_PREFIX.length),
    openedAt: readN(item, "openedAt"),
    ...(toldAt !== undefined ? { toldAt } : {}),
    ...(untold !== undefined && UNTOLD.has(untold)
      ? { untold: untold as NonNullable<ProblemRecord["untold"]> }
      : {}),
  };
}
