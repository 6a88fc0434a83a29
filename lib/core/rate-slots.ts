import type { RateSlot } from "./ports";

/*
 * The rate budget of spec 8.1 as a book of slots, one book per token: at most `usersPerWindow`
 * calls in any rolling window (so at most that many distinct users) and at most
 * `perUserPerWindow` calls of one user. A caller with no room now is handed a future slot and
 * told to come back then; the slot is kept for it, so each waiting user is retried once.
 * Pure, so the DynamoDB and in-memory budgets keep one book by the same rules.
 */

/** Spec 8.1's rolling minute. */
export const RATE_WINDOW_MS = 60_000;

export interface SlotLimits {
  /** Calls (so distinct users at most) per rolling minute for one token. Spec 8.1: 30. */
  usersPerWindow: number;
  /** Calls per rolling minute for one (token, user). Spec 8.1: 10. */
  perUserPerWindow: number;
  /**
   * Slots are spaced a minute and this much apart: room for the call's latency (and the read
   * before it) and for clocks that differ, so the service's own rolling minute never sees more.
   * A slot is honoured up to half this after its time; a later comer books again.
   */
  marginMs: number;
}

export const DEFAULT_SLOT_LIMITS: SlotLimits = {
  usersPerWindow: 30,
  perUserPerWindow: 10,
  marginMs: 2_000,
};

/** The limits given, the spec's for the rest. */
export const slotLimitsOf = (options: Partial<SlotLimits>): SlotLimits => ({
  usersPerWindow: options.usersPerWindow ?? DEFAULT_SLOT_LIMITS.usersPerWindow,
  perUserPerWindow: options.perUserPerWindow ?? DEFAULT_SLOT_LIMITS.perUserPerWindow,
  marginMs: options.marginMs ?? DEFAULT_SLOT_LIMITS.marginMs,
});

/** One booked call: `used` once its user made it (or it lapsed); a reservation before that. */
export interface Slot {
  at: number;
  user: string;
  used: boolean;
}

/**
 * Books a call of `user` at `now` in `book` (oldest first). Answers the new book and the slot:
 * ok now, or the time of the slot kept for the user. The book only grows at its end, and each
 * slot lies at least a window and the margin after the one `usersPerWindow` places before it
 * (and after the user's own `perUserPerWindow`-th before it), so no rolling window holds more.
 */
export function reserveSlot(
  book: readonly Slot[],
  user: string,
  now: number,
  limits: SlotLimits,
): { book: Slot[]; slot: RateSlot; changed: boolean } {
  const spacing = RATE_WINDOW_MS + limits.marginMs;
  // Slots a window and more in the past constrain nothing any more.
  const kept = book.filter((s) => s.at > now - spacing);
  const honoured = (s: Slot) => s.user === user && s.at <= now && now <= s.at + limits.marginMs / 2;
  // Again within its slot's first moments (a duplicate delivery, the read then the write): the
  // service counts the user once, and its presence moves by less than the margin.
  if (kept.some((s) => s.used && honoured(s))) {
    return { book: kept, slot: { ok: true }, changed: false };
  }
  const mine = kept.findIndex((s) => s.user === user && !s.used);
  const reserved = kept[mine];
  if (reserved !== undefined) {
    // Early (a duplicate message, another event): it waits for its slot; nothing changes.
    if (now < reserved.at) {
      return { book: kept, slot: { ok: false, retryAt: reserved.at }, changed: false };
    }
    const used = kept.map((s, i) => (i === mine ? { ...s, used: true } : s));
    if (honoured(reserved)) {
      return { book: used, slot: { ok: true }, changed: true };
    }
    // Too late for its slot: it stays counted where it was, and the user books again.
    return reserveSlot(used, user, now, limits);
  }
  let at = Math.max(now, kept.at(-1)?.at ?? now);
  const lapsed = kept.at(-limits.usersPerWindow);
  if (kept.length >= limits.usersPerWindow && lapsed !== undefined) {
    at = Math.max(at, lapsed.at + spacing);
  }
  const own = kept.filter((s) => s.user === user);
  const ownLapsed = own.at(-limits.perUserPerWindow);
  if (own.length >= limits.perUserPerWindow && ownLapsed !== undefined) {
    at = Math.max(at, ownLapsed.at + spacing);
  }
  const admitted = at <= now;
  return {
    book: [...kept, { at, user, used: admitted }],
    slot: admitted ? { ok: true } : { ok: false, retryAt: at },
    changed: true,
  };
}
