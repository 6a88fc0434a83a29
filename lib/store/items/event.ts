import { TTL_ATTRIBUTE } from "../table";
import { type Item, n, s } from "./codec";

/** An idempotency record for one service event id; expires (TTL in AWS, ignored on read here). */

export const eventKeys = (eventId: string) => ({ PK: `EVENT#${eventId}`, SK: "EVENT" });

export function eventToItem(eventId: string, expiresAtMs: number): Item {
  const keys = eventKeys(eventId);
  return {
    PK: s(keys.PK),
    SK: s(keys.SK),
    type: s("event"),
    [TTL_ATTRIBUTE]: n(Math.ceil(expiresAtMs / 1000)),
  };
}
