import { TTL_ATTRIBUTE } from "../table";
import { type Item, n, s } from "./codec";
import { typedItem } from "./item-head";
import { EXPIRES_AT_MS } from "./one-time-mark";

/**
 * A one-time grant (a Home tab settings link): one item per id, holding an opaque payload.
 * `expiresAtMs` decides, to the millisecond, when it can no longer be taken; `takenAtMs` appears
 * when it is taken, once. The TTL attribute (seconds) only lets AWS delete it, since dynalite
 * never does and TTL deletion lags anyway. Its own key prefix: a grant's id never meets a mark's.
 */

export const ONE_TIME_GRANT_PREFIX = "GRANT#";

export const GRANT_PAYLOAD = "payload";
export const TAKEN_AT_MS = "takenAtMs";

/**
 * How an error names a grant: its kind (the id up to its `#`) without the rest, which is the
 * bearer token of a live link and must not reach a log.
 */
export const grantNameOf = (id: string): string => {
  const cut = id.indexOf("#");
  return cut < 0 ? "(unnamed)" : `${id.slice(0, cut)}#…`;
};

export const oneTimeGrantKeys = (id: string) => ({
  PK: `${ONE_TIME_GRANT_PREFIX}${id}`,
  SK: "GRANT",
});

export function oneTimeGrantToItem(id: string, payload: string, expiresAtMs: number): Item {
  return {
    ...typedItem(oneTimeGrantKeys(id), "one-time-grant"),
    [GRANT_PAYLOAD]: s(payload),
    [EXPIRES_AT_MS]: n(expiresAtMs),
    [TTL_ATTRIBUTE]: n(Math.ceil(expiresAtMs / 1000)),
  };
}
