import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import type { Slot } from "#lib/core/rate-slots";
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

/** The token's book of slots (lib/core/rate-slots.ts): one item per token. */
export const budgetBookKeys = (tokenId: string) => ({ PK: `BUDGET#${tokenId}`, SK: "BOOK" });

/** A slot as stored: [at, user, 1 when used]; the book is one JSON string of them. */
type StoredSlot = [number, string, 0 | 1];

export const bookToJson = (book: readonly Slot[]): string =>
  JSON.stringify(book.map((s): StoredSlot => [s.at, s.user, s.used ? 1 : 0]));

export const bookFromStored = (stored: StoredSlot[]): Slot[] =>
  stored.map(([at, user, used]) => ({ at, user, used: used === 1 }));

export type { StoredSlot };

/** The book's expiry (epoch seconds): its last slot's window has passed, plus the keep time. */
export const bookExpiryOf = (book: readonly Slot[], now: number): AttributeValue =>
  n(Math.ceil((Math.max(now, book.at(-1)?.at ?? now) + WINDOW_MS * 2 + KEEP_MS) / 1000));
