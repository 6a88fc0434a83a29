import type { OutOfOfficeEntry, OutOfOfficeInput } from "#lib/core/records";
import type { UserKey } from "#lib/core/types";
import type { UseCaseContext } from "../context";
import type { StatusUseCases } from "../contracts";
import { InvalidInputError, UnknownUserError } from "../errors";
import { oooInputSchema, parseInput } from "../inputs";
import { rulesOf } from "../status/desired-timeline";

/** The out-of-office use cases; their reconcile runs inline, or is queued for the `/ooo` command. */
export type OutOfOfficeUseCases = Pick<
  StatusUseCases,
  "scheduleOutOfOffice" | "listOutOfOffice" | "cancelOutOfOffice"
>;

/** Stores an out-of-office entry (texts default to the user's rules), then reconciles. */
export async function scheduleOutOfOffice(
  ctx: UseCaseContext,
  key: UserKey,
  input: OutOfOfficeInput,
): Promise<OutOfOfficeEntry> {
  const valid = parseInput(oooInputSchema, input);
  const now = ctx.clock.now();
  if (valid.end <= now)
    throw new InvalidInputError("the out-of-office period has already ended", "/end");
  const user = await ctx.store.getUser(key);
  if (user === undefined) throw new UnknownUserError(key.team, key.user);
  const rules = rulesOf(ctx.log, user);
  const entry: OutOfOfficeEntry = {
    id: ctx.newId(),
    start: valid.start,
    end: valid.end,
    text: valid.text ?? rules.ooo.text,
    emoji: valid.emoji ?? rules.ooo.emoji,
    createdAt: now,
  };
  await ctx.store.createOutOfOffice({ ...entry, key });
  await ctx.reconcile(key);
  return entry;
}

/** The entries not yet over, earliest first. */
export async function listOutOfOffice(
  ctx: UseCaseContext,
  key: UserKey,
): Promise<OutOfOfficeEntry[]> {
  const now = ctx.clock.now();
  const snap = await ctx.store.loadUser(key);
  return snap.ooo
    .filter((e) => e.end > now)
    .sort((a, b) => a.start - b.start)
    .map(({ key: _key, ...entry }) => entry);
}

/** Deletes an entry; false when there was none. */
export async function cancelOutOfOffice(
  ctx: UseCaseContext,
  key: UserKey,
  id: string,
): Promise<boolean> {
  const removed = await ctx.store.deleteOutOfOffice(key, id);
  if (removed === undefined) return false;
  // If it was showing, the reconcile clears it (or shows the calendar's block instead).
  await ctx.reconcile(key);
  return true;
}

/** The three out-of-office use cases over one context. */
export const outOfOfficeUseCases = (ctx: UseCaseContext): OutOfOfficeUseCases => ({
  scheduleOutOfOffice: (key, input) => scheduleOutOfOffice(ctx, key, input),
  listOutOfOffice: (key) => listOutOfOffice(ctx, key),
  cancelOutOfOffice: (key, id) => cancelOutOfOffice(ctx, key, id),
});
