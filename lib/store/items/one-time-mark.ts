import { TTL_ATTRIBUTE } from "../table";
import { type Item, n } from "./codec";
import { typedItem } from "./item-head";

/**
 * A one-time mark (the spent install `state`): one item per id. `expiresAtMs` decides, to the
 * millisecond, when the mark no longer counts; the TTL attribute (seconds) only lets AWS delete
 * it, since dynalite never does and TTL deletion lags anyway.
 */

export const ONE_TIME_MARK_PREFIX = "ONCE#";

export const EXPIRES_AT_MS = "expiresAtMs";

export const oneTimeMarkKeys = (id: string) => ({ PK: `${ONE_TIME_MARK_PREFIX}${id}`, SK: "ONCE" });

export function oneTimeMarkToItem(id: string, expiresAtMs: number): Item {
  const keys = oneTimeMarkKeys(id);
  return {
    ...typedItem(keys, "one-time-mark"),
    [EXPIRES_AT_MS]: n(expiresAtMs),
    [TTL_ATTRIBUTE]: n(Math.ceil(expiresAtMs / 1000)),
  };
}
