import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { type Item, n, s } from "./codec";

/**
 * Rate-budget counters: one item per token and fixed minute holding the set of users called,
 * and one per token, user and minute holding the call count. The minute is part of the key,
 * so an item is never read after its minute: the expiry attribute only lets TTL delete it.
 */

export const WINDOW_MS = 60_000;
/** How long a window's items outlive it before TTL may delete them. */
const KEEP_MS = 10 * 60_000;

export const windowOf = (now: number): number => Math.floor(now / WINDOW_MS);

export const budgetUsersKeys = (tokenId: string, window: number) => ({
  PK: `BUDGET#${tokenId}`,
  SK: `W#${window}`,
});

export const budgetCallsKeys = (tokenId: string, window: number, user: string) => ({
  PK: `BUDGET#${tokenId}`,
  SK: `W#${window}#U#${user}`,
});

export const keyItem = (keys: { PK: string; SK: string }): Item => ({
  PK: s(keys.PK),
  SK: s(keys.SK),
});

/** The expiry (epoch seconds) of a window's items, for the table's TTL attribute. */
export const expiryOf = (window: number): AttributeValue =>
  n(Math.ceil(((window + 1) * WINDOW_MS + KEEP_MS) / 1000));
